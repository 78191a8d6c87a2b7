/// Any JSON value, for fields whose shape the app chooses (`user_info`, user properties), and for code
/// that edits a payload it passes on (the gateway's shard merges, the signer, recordings).
///
/// It is not the codec's tree (`JSONTree`) because it serves the other side: its objects are
/// dictionaries, equal and hashed whatever their order and edited by key, and its numbers are
/// Doubles that analytics adds and compares. The tree keeps what those give up and the wire needs —
/// a 64-bit integer's exact digits, fields in the order read (first of a key wins, nothing hashed
/// while parsing) — so the decoder turns a tree into a `JSONValue` only where one is asked for.
public enum JSONValue: Codable, Equatable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        // The wire decoder has the parsed tree at hand: convert it instead of probing each type.
        if let tree = decoder as? TreeDecoder {
            self.init(tree.value)
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
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9.0e15 { try container.encode(Int64(value)) }
            else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    init(_ tree: JSONTree) {
        switch tree {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let text): self = .number(JSONTree.double(text))
        case .string(let value): self = .string(value)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let fields):
            self = .object(Dictionary(fields.map { ($0.key, JSONValue($0.value)) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var string: String? { if case .string(let v) = self { return v } else { return nil } }
    public var number: Double? { if case .number(let v) = self { return v } else { return nil } }
}
