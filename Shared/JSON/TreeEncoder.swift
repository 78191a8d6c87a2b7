import Foundation

/// The Encoder the codec hands to a value and to each value nested in it. What the value encodes —
/// one value, an object's fields or an array's items — is kept in the encoder itself, so a container
/// handed out earlier still adds to the same place, as the Encoder protocol allows (a reply's body
/// writes its fields, then `code` and `seq` join them); `tree()` reads the result once the value's
/// `encode(to:)` has returned. A nested container or a `superEncoder` is an encoder of its own, whose
/// tree fills its slot when its parent's is read. So the tree itself holds no reference boxes.
final class TreeEncoder: Encoder {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private enum Shape { case empty, single, object, array }
    private var shape = Shape.empty
    private var single = JSONValue.null
    /// The object's fields in the order set; a key set twice keeps its last value (`tree()` sorts).
    var fields: [(key: String, value: JSONValue)] = []
    var items: [JSONValue] = []
    /// Slots of `fields` or `items` that a nested encoder fills.
    private var nested: [(slot: Int, encoder: TreeEncoder)] = []

    init(path: [any CodingKey]) { codingPath = path }

    /// Fields most objects PushBus encodes fit in.
    static let expectedFields = 8

    /// The tree for `value`. Scalars are told apart by their type, which costs a comparison, not a
    /// dynamic cast; everything else encodes itself into a fresh encoder.
    static func tree<T: Encodable>(of value: T, path: [any CodingKey]) throws -> JSONValue {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .number(JSONNumber(unsafeBitCast(value, to: Int.self))) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return try number(unsafeBitCast(value, to: Double.self), path) }
        if T.self == Int64.self { return .number(JSONNumber(unsafeBitCast(value, to: Int64.self))) }
        if T.self == Int32.self { return .number(JSONNumber(unsafeBitCast(value, to: Int32.self))) }
        if T.self == UInt64.self { return .number(JSONNumber(unsafeBitCast(value, to: UInt64.self))) }
        if T.self == UInt.self { return .number(JSONNumber(unsafeBitCast(value, to: UInt.self))) }
        if T.self == Float.self { return try number(Double(unsafeBitCast(value, to: Float.self)), path) }
        // The narrower integers too: their own `encode(to:)` hands their value to the single-value
        // container, which would come back here, again and again.
        if T.self == Int8.self { return .number(JSONNumber(unsafeBitCast(value, to: Int8.self))) }
        if T.self == Int16.self { return .number(JSONNumber(unsafeBitCast(value, to: Int16.self))) }
        if T.self == UInt8.self { return .number(JSONNumber(unsafeBitCast(value, to: UInt8.self))) }
        if T.self == UInt16.self { return .number(JSONNumber(unsafeBitCast(value, to: UInt16.self))) }
        if T.self == UInt32.self { return .number(JSONNumber(unsafeBitCast(value, to: UInt32.self))) }
        if T.self == Data.self { return .string(unsafeBitCast(value, to: Data.self).base64EncodedString()) }
        if T.self == URL.self, let url = value as? URL { return .string(url.absoluteString) }
        if T.self == JSONValue.self { return try unsafeBitCast(value, to: JSONValue.self).written(path) }
        // Lists of names (tags, aliases, channels) are in most replies and events: no encoder of their own.
        if T.self == [String].self { return .array(unsafeBitCast(value, to: [String].self).map(JSONValue.string)) }
        let encoder = TreeEncoder(path: path)
        try value.encode(to: encoder)
        return encoder.tree()
    }

    static func number(_ value: Double, _ path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(), debugDescription: "\(value) is not valid JSON"))
        }
        return .number(JSONNumber(value))
    }

    /// What was encoded: an empty object when nothing was, as Foundation writes it.
    func tree() -> JSONValue {
        switch shape {
        case .empty: return .object(JSONObject())
        case .single: return single
        case .array:
            for (slot, encoder) in nested { items[slot] = encoder.tree() }
            return .array(items)
        case .object:
            for (slot, encoder) in nested { fields[slot].value = encoder.tree() }
            // Moved out, so the object holds its members alone and sorts them without a copy.
            var object = JSONObject(members: fields)
            fields = []
            object.sort(keepingLast: true)
            return .object(object)
        }
    }

    /// Sets one value in place of anything encoded before.
    func set(_ value: JSONValue) {
        shape = .single
        single = value
        nested = []
    }

    /// An encoder whose tree becomes the value of `key` (an item when nil).
    func nest(_ key: String?, path: [any CodingKey]) -> TreeEncoder {
        let encoder = TreeEncoder(path: path)
        if let key {
            nested.append((fields.count, encoder))
            fields.append((key, .null))
        } else {
            nested.append((items.count, encoder))
            items.append(.null)
        }
        return encoder
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if shape != .object {
            // A value encoded whole before (a body passed on with `code` to add) keeps its fields.
            if shape == .single, case .object(let existing) = single {
                fields = existing.members
            } else {
                // Room for a reply's or an event's fields at once, rather than growing 1, 2, 4, 8.
                fields = []
                fields.reserveCapacity(Self.expectedFields)
            }
            shape = .object
            nested = []
        }
        return KeyedEncodingContainer(KeyedTreeContainer(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if shape != .array {
            if shape == .single, case .array(let existing) = single { items = existing } else { items = [] }
            shape = .array
            nested = []
        }
        return UnkeyedTreeContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleTreeContainer(encoder: self) }
}
