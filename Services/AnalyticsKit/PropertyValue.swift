import JSON
import Schema

/// A value `set` may store, sorted by how it updates what is there.
enum PropertyValue: Equatable {
    /// A string, finite number, boolean or string list (duplicates dropped): overwrites.
    case plain(JSONValue, PropertyType)
    /// `[]`: clears an existing string list or object_array; cannot create one (its type is unknown).
    case emptyArray
    /// Subfields merged into the stored object; a null subfield removes it.
    case object([String: JSONValue])
    /// Replaces the whole array, keeping its order; elements have no null subfields.
    case objectArray([[String: JSONValue]])

    /// Checks a value against the seed's value rules; a top-level null is refused (use `delete`).
    init(_ value: JSONValue, name: String) throws(CommandError) {
        switch value {
        case .null:
            throw .invalid("\(name): null cannot delete a property; use op delete")
        case .string, .bool:
            self = .plain(value, PropertyType.plain(of: value) ?? .string)
        case .number(let number):
            guard number.isFinite else { throw .invalid("\(name): a number must be finite") }
            self = .plain(value, .number)
        case .object(let fields):
            self = .object(try PropertyRules.subfields(fields.dictionary, of: name))
        case .array(let items) where items.isEmpty:
            self = .emptyArray
        case .array(let items):
            let strings = items.compactMap(\.string)
            if strings.count == items.count {
                self = .plain(.array(PropertyRules.unique(strings).map(JSONValue.string)), .stringList)
                return
            }
            var elements: [[String: JSONValue]] = []
            for item in items {
                guard case .object(let fields) = item else {
                    throw .invalid("\(name): an array holds only strings or only objects")
                }
                elements.append(try PropertyRules.element(fields.dictionary, of: name))
            }
            self = .objectArray(elements)
        }
    }
}
