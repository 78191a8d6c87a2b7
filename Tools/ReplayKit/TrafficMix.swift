/// Which commands a generated recording holds after the registrations, by weight.
public struct TrafficMix: Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case tagsAdd = "tags.add", tagsSet = "tags.set", tagsDelete = "tags.delete", tagsGet = "tags.get"
        case tagsValid = "tags.valid", aliasSet = "alias.set", aliasGet = "alias.get"
        case channelSubscribe = "channel.subscribe"
        case badgeSet = "badge.set", badgeGet = "badge.get"
        case localAdd = "local.add", localFind = "local.find"
        case maEvents = "ma.events", statsReport = "stats.report"

        /// Analytics commands need an EUID, so their devices are started (`ma.start`) first.
        var needsEUID: Bool { self == .maEvents }
    }

    public let name: String
    public let weights: [(kind: Kind, weight: Int)]

    /// The documented default: every service, tagging the largest share.
    public static let `default` = TrafficMix(name: "default", weights: [
        (.tagsAdd, 20), (.tagsSet, 5), (.tagsDelete, 5), (.tagsGet, 5), (.aliasSet, 8), (.aliasGet, 2),
        (.channelSubscribe, 5), (.badgeSet, 10), (.badgeGet, 5), (.localAdd, 10), (.localFind, 5),
        (.maEvents, 10), (.statsReport, 10),
    ])

    /// Tagging only, for load tests of the tagging path.
    public static let tagging = TrafficMix(name: "tagging", weights: [
        (.tagsAdd, 45), (.tagsSet, 15), (.tagsDelete, 10), (.tagsGet, 10), (.tagsValid, 5), (.aliasSet, 10), (.aliasGet, 5),
    ])

    /// Reads only (nothing to commit), for round-trip latency.
    public static let reads = TrafficMix(name: "reads", weights: [(.tagsGet, 60), (.aliasGet, 20), (.tagsValid, 20)])

    public static let all = [TrafficMix.default, .tagging, .reads]

    public static func named(_ name: String) -> TrafficMix? { all.first { $0.name == name } }

    var total: Int { weights.reduce(0) { $0 + $1.weight } }
    var usesAnalytics: Bool { weights.contains { $0.kind.needsEUID } }

    func pick<R: RandomNumberGenerator>(_ random: inout R) -> Kind {
        var roll = Int.random(in: 0..<total, using: &random)
        for entry in weights {
            if roll < entry.weight { return entry.kind }
            roll -= entry.weight
        }
        return weights[0].kind
    }
}
