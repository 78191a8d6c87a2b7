import JSON
import Schema
import SQLite

/// Applies a checked `PropertyOperation` to one EUID's properties with the seed's semantics, keeping the
/// app's metadata (each property's and subfield's type) as it goes. Runs inside the caller's write: a
/// refusal (6017) thrown halfway rolls the whole operation back, so a batch is all or nothing.
struct PropertyEditor {
    let profiles: ProfileStore

    func apply(_ operation: PropertyOperation, euid: String, appKey: String, in db: Database) throws {
        let target = Target(db: db, euid: euid, appKey: appKey, profiles: profiles)
        switch operation {
        case .set(let entries): for entry in entries { try target.set(entry.name, entry.value) }
        case .increase(let entries): for entry in entries { try target.increase(entry.name, by: entry.value) }
        case .add(let entries): for entry in entries { try target.add(entry.value, to: entry.name) }
        case .remove(let entries): for entry in entries { try target.remove(entry.value, from: entry.name) }
        case .delete(let name): try profiles.deleteProperty(db, euid: euid, name: name)
        case .updateObjectArray(let key, let match, let values): try target.updateElement(of: key, match, values)
        case .addObjectArray(let key, let object): try target.append(object, to: key)
        case .removeObjectArray(let key, let match): try target.removeElement(of: key, match)
        }
    }

    /// One EUID's properties inside one transaction.
    private struct Target {
        let db: Database
        let euid: String
        let appKey: String
        let profiles: ProfileStore

        func set(_ name: String, _ value: PropertyValue) throws {
            switch value {
            case .plain(let plain, let type):
                try conform(name, type)
                try store(name, plain)
            case .emptyArray:
                let type = try profiles.propertyType(db, appKey: appKey, name: name)
                guard type == .stringList || type == .objectArray else {
                    throw CommandError.invalid("\(name): an empty array only clears an existing string list or object_array")
                }
                try store(name, .array([]))
            case .object(let fields):
                try conform(name, .object)
                try conformSubfields(of: name, fields)
                guard case .object(var merged)? = try current(name) ?? .object([:]) else { return }
                Self.merge(fields, into: &merged)
                try store(name, .object(merged))
            case .objectArray(let elements):
                try conform(name, .objectArray)
                for element in elements { try conformSubfields(of: name, element) }
                try store(name, .array(elements.map(JSONValue.object)))
            }
        }

        /// Numbers only; a missing property counts from 0; any other type is left alone.
        func increase(_ name: String, by amount: Double) throws {
            guard try isUnset(name, or: .number) else { return }
            let base: Double
            switch try current(name) {
            case nil: base = 0
            case .number(let number)?: base = number.value
            default: return
            }
            let sum = base + amount
            guard sum.isFinite else { throw CommandError.invalid("\(name): the sum is not a finite number") }
            try conform(name, .number)
            try store(name, .number(sum))
        }

        /// Adds strings to a string list (created empty when missing); any other type is left alone.
        func add(_ values: [String], to name: String) throws {
            guard try isUnset(name, or: .stringList) else { return }
            var list: [String]
            switch try current(name) {
            case nil: list = []
            case .array(let items)?: list = items.compactMap(\.string)
            default: return
            }
            list = PropertyRules.unique(list + values)
            try conform(name, .stringList)
            try store(name, .array(list.map(JSONValue.string)))
        }

        /// Removes strings from a string list; a missing property or any other type is left alone.
        func remove(_ values: [String], from name: String) throws {
            guard try profiles.propertyType(db, appKey: appKey, name: name) == .stringList,
                  case .array(let items)? = try current(name) else { return }
            let removed = Set(values)
            try store(name, .array(items.filter { !removed.contains($0.string ?? "") }))
        }

        /// Merges `values` into the one element `match` finds. Undefined property or no value: code 0,
        /// nothing changes. Not an object_array, a bad identifier, no match or several: 6017.
        func updateElement(of name: String, _ match: PropertyOperation.ElementMatch, _ values: [String: JSONValue]) throws {
            guard var elements = try objectArray(name, creating: false) else { return }
            let found = try matches(name, match, in: elements)
            guard found.count == 1, case .object(var element) = elements[found[0]] else {
                throw CommandError.invalid("\(name): \(found.count) elements have \(match.key) = \(Self.text(match.value)); exactly one must")
            }
            try conformSubfields(of: name, values)
            Self.merge(values, into: &element)
            elements[found[0]] = .object(element)
            try store(name, .array(elements))
        }

        /// Appends one element. Undefined property: code 0, nothing changes; defined without a value: `[object]`.
        func append(_ object: [String: JSONValue], to name: String) throws {
            guard let elements = try objectArray(name, creating: true) else { return }
            try conformSubfields(of: name, object)
            try store(name, .array(elements + [.object(object)]))
        }

        /// Removes the one element `match` finds. Undefined, no value or no match: code 0, nothing changes.
        /// Several matches or a bad identifier: 6017.
        func removeElement(of name: String, _ match: PropertyOperation.ElementMatch) throws {
            guard var elements = try objectArray(name, creating: false) else { return }
            let found = try matches(name, match, in: elements)
            guard found.count <= 1 else {
                throw CommandError.invalid("\(name): \(found.count) elements have \(match.key) = \(Self.text(match.value)); at most one may")
            }
            guard let index = found.first else { return }
            elements.remove(at: index)
            try store(name, .array(elements))
        }

        // MARK: metadata

        /// The stored elements of an object_array property; nil (nothing to do) when the property is not
        /// defined, or has no value and `creating` is false. 6017 when it is defined as another type.
        private func objectArray(_ name: String, creating: Bool) throws -> [JSONValue]? {
            guard let type = try profiles.propertyType(db, appKey: appKey, name: name) else { return nil }
            guard type == .objectArray else {
                throw CommandError.invalid("\(name) is a \(type.rawValue), not an object_array")
            }
            switch try current(name) {
            case .array(let elements)?: return elements
            default: return creating ? [] : nil
            }
        }

        /// The indices of the elements whose identifier subfield equals the match value; 6017 unless the
        /// subfield is defined as a string or number and the value has that type.
        private func matches(_ name: String, _ match: PropertyOperation.ElementMatch, in elements: [JSONValue]) throws -> [Int] {
            let type = try profiles.subfieldType(db, appKey: appKey, property: name, subfield: match.key)
            guard let type, type == .string || type == .number else {
                throw CommandError.invalid("\(name).\(match.key) is not a string or number subfield")
            }
            guard PropertyType.plain(of: match.value) == type else {
                throw CommandError.invalid("\(name).\(match.key) is a \(type.rawValue); identifier_value is not")
            }
            return elements.indices.filter { elements[$0][match.key] == match.value }
        }

        private func isUnset(_ name: String, or type: PropertyType) throws -> Bool {
            let defined = try profiles.propertyType(db, appKey: appKey, name: name)
            return defined == nil || defined == type
        }

        /// Checks `type` against the metadata of `name`, defining it on first use.
        private func conform(_ name: String, _ type: PropertyType) throws {
            guard let defined = try profiles.propertyType(db, appKey: appKey, name: name) else {
                return try profiles.defineProperty(db, appKey: appKey, name: name, type: type)
            }
            guard defined == type else { throw CommandError.invalid("\(name) is a \(defined.rawValue), not a \(type.rawValue)") }
        }

        /// Checks each non-null subfield against the metadata of `property`, defining new ones.
        private func conformSubfields(of property: String, _ fields: [String: JSONValue]) throws {
            for (subfield, value) in fields.sorted(by: { $0.key < $1.key }) {
                guard let type = PropertyType.plain(of: value) else { continue }
                guard let defined = try profiles.subfieldType(db, appKey: appKey, property: property, subfield: subfield) else {
                    try profiles.defineSubfield(db, appKey: appKey, property: property, subfield: subfield, type: type)
                    continue
                }
                guard defined == type else {
                    throw CommandError.invalid("\(property).\(subfield) is a \(defined.rawValue), not a \(type.rawValue)")
                }
            }
        }

        // MARK: values

        private func current(_ name: String) throws -> JSONValue? {
            try profiles.property(db, euid: euid, name: name)
        }

        private func store(_ name: String, _ value: JSONValue) throws {
            try profiles.setProperty(db, euid: euid, name: name, value: value)
        }

        /// Sets each subfield; a null one removes it.
        private static func merge(_ fields: [String: JSONValue], into object: inout JSONObject) {
            for (key, value) in fields { object[key] = value == .null ? nil : value }
        }

        private static func text(_ value: JSONValue) -> String {
            String(decoding: WireCodec.encode(value), as: UTF8.self)
        }
    }
}
