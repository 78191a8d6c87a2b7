import Client
import Foundation
import JSON
import Schema

/// A recorded call made ready to send fast: its payload encoded once (with `seq` set to the call's
/// index, so the reply finds its way back), where the IDs that earlier calls produce sit in it, which
/// call must finish first, and which connection keeps its device's calls in order.
struct PreparedCall {
    /// The fields that name a device, user or app and may need the ID the server gave out this time.
    static let idKeys: Set<String> = ["registration_id", "registration_ids", "euid", "app_key"]

    let index: Int
    let t: Double
    let service: Data
    let command: String
    let payload: Data
    /// `payload` with what signing reads of it, read here once.
    let signing: SigningPlan
    /// Byte ranges of IDs (inside their quotes) that the replay maps, with the recorded ID.
    let ids: [(range: Range<Int>, old: String)]
    /// The call whose reply produces an ID this one uses.
    let dependency: Int?
    let connection: Int
    /// ID field → recorded value, when the recorded reply gives out IDs (registration, MA start, app).
    let produces: [String: String]
    let recordedReply: JSONValue?

    /// `carried` maps the IDs an earlier run was given (`ReplayIDs`): they are written into the
    /// payload here, once, so only the IDs of this run's own calls are replaced as it goes. An ID
    /// that a call of this run gives out (`producers`) is this run's, whatever the file says.
    init(_ call: RecordedCall, index: Int, producers: [String: Int], carried: [String: String] = [:], connections: Int) {
        self.index = index
        t = call.t
        service = Data(call.service.utf8)
        command = call.command
        recordedReply = call.reply
        var object: [String: JSONValue] = [:]
        if case .object(let fields) = call.payload { object = fields.dictionary }
        object["seq"] = .number(Double(index))
        if !carried.isEmpty {
            func given(_ id: String) -> String { producers[id] == nil ? carried[id] ?? id : id }
            for key in Self.idKeys {
                switch object[key] {
                case .string(let id)?: object[key] = .string(given(id))
                case .array(let items)?: object[key] = .array(items.map { item in item.string.map { .string(given($0)) } ?? item })
                default: break
                }
            }
        }
        let encoded = WireCodec.encode(JSONValue.object(object))
        payload = encoded
        signing = Signer.plan(command: call.command, payload: encoded)

        var used: [String] = []
        for key in Self.idKeys {
            switch object[key] {
            case .string(let id)?: used.append(id)
            case .array(let items)?: used += items.compactMap(\.string)
            default: break
            }
        }
        var ranges: [(Range<Int>, String)] = []
        for id in Set(used) where producers[id] != nil {
            var from = encoded.startIndex
            let quoted = Data("\"\(id)\"".utf8)
            while let found = encoded.range(of: quoted, in: from..<encoded.endIndex) {
                ranges.append(((found.lowerBound + 1)..<(found.upperBound - 1), id))
                from = found.upperBound
            }
        }
        ids = ranges
        dependency = used.compactMap { producers[$0] }.filter { $0 < index }.max()
        let key = (object["registration_id"]?.string ?? object["euid"]?.string)
        connection = key.map { Int(ShardHash.hash($0) % UInt64(connections)) } ?? index % connections

        var produced: [String: String] = [:]
        if case .object(let reply)? = call.reply {
            for key in ["registration_id", "euid", "app_key"] { if let id = reply[key]?.string { produced[key] = id } }
        }
        produces = produced
    }

    /// The body to send, signed by `signer`: the payload as prepared, or, when it names IDs this run
    /// maps, with them replaced, and then read again for signing.
    func body(signedBy signer: Signer, mapping: [String: String]) -> [Data] {
        guard !ids.isEmpty else { return signer.sign(signing) }
        return signer.sign(command: command, payload: payload(mapping: mapping))
    }

    /// The payload with every mapped ID replaced by the one this run got.
    func payload(mapping: [String: String]) -> Data {
        guard !ids.isEmpty else { return payload }
        var result = Data()
        result.reserveCapacity(payload.count)
        var position = payload.startIndex
        for (range, old) in ids.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            result.append(payload[position..<range.lowerBound])
            result.append(contentsOf: Array((mapping[old] ?? old).utf8))
            position = range.upperBound
        }
        result.append(payload[position...])
        return result
    }
}
