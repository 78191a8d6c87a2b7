import JSON
import Schema

/// Whether a reply matches the recorded one: the same JSON once IDs are mapped to this run's,
/// `seq` is set aside (the replay numbers its own), and fields that differ on every run by
/// nature (times, secrets) are ignored.
enum ReplyComparison {
    static let volatileKeys: Set<String> = ["seq", "ts", "created_at", "updated_at", "master_secret", "device_secret", "next_fire_at",
                                            "fired_at", "time", "expires_at_server"]

    static func matches(recorded: JSONValue, got: JSONValue, mapping: [String: String]) -> Bool {
        normalize(recorded, mapping: mapping) == normalize(got, mapping: [:])
    }

    static func normalize(_ value: JSONValue, mapping: [String: String]) -> JSONValue {
        switch value {
        case .string(let text): return .string(mapping[text] ?? text)
        case .array(let items): return .array(items.map { normalize($0, mapping: mapping) })
        case .object(let fields):
            var kept: [String: JSONValue] = [:]
            for (key, field) in fields.dictionary where !volatileKeys.contains(key) { kept[key] = normalize(field, mapping: mapping) }
            return .object(kept)
        default: return value
        }
    }
}
