import JSON
import Schema

/// The changes of an `ma.contact` request: for each contact kind given, its new value or nil to clear it.
/// A value of "" clears; one of only whitespace, longer than 256 characters, or an unknown kind is refused.
struct ContactUpdate: Equatable {
    static let kinds = ["email", "mobile_phone", "landline_phone", "whatsapp_phone"]
    static let maxLength = 256

    struct Change: Equatable {
        let kind: String
        let value: String?
    }

    let changes: [Change]

    /// `given` are the keys the payload's `contacts` object holds, to refuse unknown ones.
    init(_ contacts: MAUserContacts?, given: [String]) throws(CommandError) {
        guard let contacts else { throw .empty("contacts is missing") }
        if let unknown = given.sorted().first(where: { !Self.kinds.contains($0) }) {
            throw .invalid("unknown contact \(unknown.prefix(64)); use " + Self.kinds.joined(separator: ", "))
        }
        var changes: [Change] = []
        let values = [contacts.email, contacts.mobilePhone, contacts.landlinePhone, contacts.whatsappPhone]
        for (kind, value) in zip(Self.kinds, values) {
            guard let value else { continue }
            guard value.isEmpty || !value.allSatisfy(\.isWhitespace) else { throw .invalid("\(kind) is only whitespace") }
            guard value.count <= Self.maxLength else { throw .invalid("\(kind) is longer than \(Self.maxLength) characters") }
            changes.append(Change(kind: kind, value: value.isEmpty ? nil : value))
        }
        guard !changes.isEmpty else { throw .empty("contacts holds no value: give email, mobile_phone, landline_phone or whatsapp_phone") }
        self.changes = changes
    }

    /// The keys of the payload's `contacts` object, whatever their values.
    struct Keys: Decodable, Sendable {
        let contacts: [String: JSONValue]?
    }
}
