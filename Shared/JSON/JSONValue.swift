/// Any JSON value: the codec's one tree and the public value for fields whose shape the app chooses
/// (`user_info`, user properties) and for code that edits a payload it passes on (the gateway's shard
/// merges, the signer, recordings). `JSONParser` builds it from bytes for `TreeDecoder`, `TreeEncoder`
/// builds it from values for `JSONWriter`.
///
/// A number keeps its JSON text (`JSONNumber`) and an object its members in order (`JSONObject`), so
/// the wire reads a 64-bit integer exactly and parsing hashes nothing; both compare by value, so
/// `.number(1)` equals a parsed `1.0` and objects are equal whatever their order. Written out as a
/// value of its own, a number is written by its Double value and an object with sorted keys, the
/// first of a key kept, as Foundation wrote it.
public enum JSONValue: Codable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A number with the Double's value, whole values below 9×10^15 written without a fraction.
    public static func number(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) < 9.0e15 { return .number(JSONNumber(Int64(value))) }
        return .number(JSONNumber(value))
    }

    public static func object(_ members: [String: JSONValue]) -> JSONValue { .object(JSONObject(members)) }

    public init(from decoder: any Decoder) throws {
        // The wire decoder holds the value already; other decoders are asked for each kind in turn.
        if let tree = decoder as? TreeDecoder {
            self = tree.value
            return
        }
        if let scan = decoder as? ScanDecoder {
            self = try scan.tree(scan.value)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        if let tree = encoder as? TreeEncoder {
            tree.set(try written(tree.codingPath))
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let number):
            let value = number.value
            if value.rounded() == value, abs(value) < 9.0e15 { try container.encode(Int64(value)) }
            else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value.dictionary)
        }
    }

    /// This value as it is written out: numbers by their Double value, objects sorted, the first of a
    /// key kept. Throws `EncodingError.invalidValue` for a number that is not finite.
    func written(_ path: [any CodingKey]) throws -> JSONValue {
        switch self {
        case .null, .bool, .string: return self
        case .number(let number):
            guard number.isFinite else {
                throw EncodingError.invalidValue(number.value, .init(codingPath: path, debugDescription: "\(number) is not valid JSON"))
            }
            return number.isShortInteger ? self : .number(number.value)
        case .array(let items): return .array(try items.map { try $0.written(path) })
        case .object(let object): return .object(try object.sorted(keepingLast: false).mapValues { try $0.written(path) })
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var string: String? { if case .string(let v) = self { return v } else { return nil } }
    public var number: Double? { if case .number(let v) = self { return v.value } else { return nil } }
}
