import JSON
import Schema

/// One `ma.property` request, its shape and names checked before it touches the database.
enum PropertyOperation: Equatable {
    case set([Entry<PropertyValue>])
    case increase([Entry<Double>])
    case add([Entry<[String]>])
    case remove([Entry<[String]>])
    case delete(String)
    case updateObjectArray(key: String, match: ElementMatch, values: [String: JSONValue])
    case addObjectArray(key: String, object: [String: JSONValue])
    case removeObjectArray(key: String, match: ElementMatch)

    /// A property name and what the operation does to it.
    struct Entry<Value: Equatable>: Equatable {
        let name: String
        let value: Value
    }

    /// The element of an object_array whose subfield `key` equals `value` (a string or a finite number).
    struct ElementMatch: Equatable {
        let key: String
        let value: JSONValue
    }

    init(_ p: MAProperty) throws(CommandError) {
        guard let op = p.op else {
            throw .empty("op is missing: " + MAPropertyOp.allCases.map(\.rawValue).joined(separator: ", "))
        }
        switch op {
        case .set:
            self = .set(try Self.entries(p, single: p.value.single, "value") { name, value throws(CommandError) in
                try PropertyValue(value, name: name)
            })
        case .increase:
            self = .increase(try Self.entries(p, single: p.amount.map(JSONValue.number), "amount") { name, value throws(CommandError) in
                guard case .number(let amount) = value, amount.isFinite else { throw .invalid("\(name): increase takes a number") }
                return amount.value
            })
        case .add:
            self = .add(try Self.entries(p, single: p.values, "values", Self.strings))
        case .remove:
            self = .remove(try Self.entries(p, single: p.values, "values", Self.strings))
        case .delete:
            self = .delete(try Self.key(p))
        case .updateObjectArray:
            let key = try Self.key(p)
            let match = try Self.match(p, key)
            guard let values = p.values else { throw .empty("values is missing") }
            guard case .object(let fields) = values else { throw .invalid("values must be an object of subfields") }
            guard fields[match.key] == nil else { throw .invalid("values must not hold the identifier_key \(match.key)") }
            self = .updateObjectArray(key: key, match: match, values: try PropertyRules.subfields(fields.dictionary, of: key))
        case .addObjectArray:
            let key = try Self.key(p)
            guard let object = p.object else { throw .empty("object is missing") }
            self = .addObjectArray(key: key, object: try PropertyRules.element(object, of: key))
        case .removeObjectArray:
            let key = try Self.key(p)
            self = .removeObjectArray(key: key, match: try Self.match(p, key))
        }
    }

    /// The entries of a batch (`properties`, at most 100) or of one `key` with its `single` value field.
    private static func entries<Value>(_ p: MAProperty, single: JSONValue?, _ field: String,
                                       _ parse: (String, JSONValue) throws(CommandError) -> Value) throws(CommandError) -> [Entry<Value>] {
        var entries: [Entry<Value>] = []
        switch (p.properties, p.key) {
        case (.some, .some):
            throw .invalid("give properties or key, not both")
        case (nil, nil):
            throw .empty("properties (or key and \(field)) is missing")
        case (let properties?, nil):
            guard !properties.isEmpty else { throw .empty("properties is empty") }
            guard properties.count <= PropertyRules.maxBatch else {
                throw .invalid("\(properties.count) properties in one call; at most \(PropertyRules.maxBatch)")
            }
            for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
                entries.append(Entry(name: try PropertyRules.name(name), value: try parse(name, value)))
            }
        case (nil, let key?):
            let name = try PropertyRules.name(key)
            guard let single else { throw .empty("\(field) is missing") }
            entries.append(Entry(name: name, value: try parse(name, single)))
        }
        return entries
    }

    private static func strings(_ name: String, _ value: JSONValue) throws(CommandError) -> [String] {
        guard case .array(let items) = value else { throw .invalid("\(name): give an array of strings") }
        let strings = items.compactMap(\.string)
        guard strings.count == items.count else { throw .invalid("\(name): the values must all be strings") }
        return PropertyRules.unique(strings)
    }

    private static func key(_ p: MAProperty) throws(CommandError) -> String {
        guard let key = p.key else { throw .empty("key is missing") }
        return try PropertyRules.name(key)
    }

    private static func match(_ p: MAProperty, _ key: String) throws(CommandError) -> ElementMatch {
        guard let identifierKey = p.identifierKey else { throw .empty("identifier_key is missing") }
        try PropertyRules.subfieldName(identifierKey, of: key)
        guard let value = p.identifierValue, value != .null else { throw .empty("identifier_value is missing") }
        switch value {
        case .string: break
        case .number(let number) where number.isFinite: break
        default: throw .invalid("identifier_value must be a string or a finite number that is not a boolean")
        }
        return ElementMatch(key: identifierKey, value: value)
    }
}

extension Patch where Value == JSONValue {
    /// A `value` field: absent is nil, null is JSON null (which `set` refuses at the top level).
    var single: JSONValue? {
        switch self {
        case .absent: nil
        case .null: .null
        case .value(let value): value
        }
    }
}
