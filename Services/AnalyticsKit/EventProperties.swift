import JSON
import Schema

/// An event's properties as `ma.events` checks and stores them: whether there are any, a name that
/// is empty or longer than `EventBatch.maxNameBytes`, and the text stored, which is what
/// `WireCodec.encode` writes for the decoded `[String: JSONValue]` (keys sorted, the first of a key
/// kept, numbers by their value).
struct EventProperties {
    let isEmpty: Bool
    let badName: String?
    let text: String

    /// From the members the parser read, or a decoded dictionary's. Names beyond ASCII may be equal as
    /// `String`s without being the same bytes (`é` composed or not), so the dictionary decoded from them
    /// has fewer: then they are read, and the text written, from that dictionary, as they were.
    init(_ object: JSONObject) {
        isEmpty = object.isEmpty
        if object.members.allSatisfy({ $0.key.utf8.allSatisfy { $0 < 0x80 } }) {
            badName = object.members.first { Self.isBad($0.key) }?.key
            let value = JSONValue.object(object)
            text = (try? JSONTreeEncoder().text(value)) ?? String(decoding: WireCodec.encode(value), as: UTF8.self)
        } else {
            let dictionary = object.dictionary
            badName = dictionary.keys.first(where: Self.isBad)
            text = String(decoding: WireCodec.encode(dictionary), as: UTF8.self)
        }
    }

    private static func isBad(_ name: String) -> Bool { name.isEmpty || name.utf8.count > EventBatch.maxNameBytes }
}
