import JSON

/// One object of a parsed tree, its members read as the keyed decoder reads them: the first of a
/// key, null as absent for an optional, a value of another type refused with the same
/// `DecodingError` (so `WireCodec` gives the same code). For the sending path's batches, where a
/// decoder looking up every key of every item was the largest cost (`device.tokens`' replies,
/// `apns.send` and its answers).
struct TreeFields {
    let members: [(key: String, value: JSONValue)]
    let path: [any CodingKey]
    /// Where a key the object does not have is looked up (a batch's `common` fields), if anywhere.
    let fallback: [(key: String, value: JSONValue)]

    /// `fallback`'s members stand in for keys `value` does not have (a null in `value` is its own).
    init<T>(_ value: JSONValue, as type: T.Type, path: [any CodingKey], fallback: TreeFields? = nil) throws {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected an object"))
        }
        members = object.members
        self.path = path
        self.fallback = fallback?.members ?? []
    }

    /// The first value of `key` (the fallback's when the object has none), nil when absent or null.
    private func value(_ key: some CodingKey) -> JSONValue? {
        guard let value = member(key) else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// The first value of `key` as written, null included; the fallback's when the object has none.
    private func member(_ key: some CodingKey) -> JSONValue? {
        let name = key.stringValue
        for member in members where member.key == name { return member.value }
        for member in fallback where member.key == name { return member.value }
        return nil
    }

    private func mismatch<T>(_ type: T.Type, _ key: some CodingKey) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path + [key], debugDescription: "\(key.stringValue) is not a \(type)"))
    }

    private func missing(_ key: some CodingKey) -> DecodingError {
        .keyNotFound(key, .init(codingPath: path, debugDescription: "\(key.stringValue) is missing"))
    }

    func string(_ key: some CodingKey) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw mismatch(String.self, key) }
        return text
    }

    func string(required key: some CodingKey) throws -> String {
        guard let text = try string(key) else { throw missing(key) }
        return text
    }

    func bool(required key: some CodingKey) throws -> Bool {
        guard let value = value(key) else { throw missing(key) }
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, key) }
        return flag
    }

    func int(_ key: some CodingKey) throws -> Int? {
        guard let value = value(key) else { return nil }
        // By its digits first: past 2^53 a Double no longer holds every integer (a `seq`).
        guard case .number(let number) = value, let integer = Int(number.text) ?? Int(exactly: number.value) else { throw mismatch(Int.self, key) }
        return integer
    }

    func int(required key: some CodingKey) throws -> Int {
        guard let integer = try int(key) else { throw missing(key) }
        return integer
    }

    func bool(_ key: some CodingKey) throws -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, key) }
        return flag
    }

    /// A list of strings, nil when absent or null.
    func strings(_ key: some CodingKey) throws -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw mismatch([String].self, key) }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw DecodingError.typeMismatch(String.self, .init(codingPath: path + [key, IndexKey(index)], debugDescription: "not a string"))
            }
            strings.append(text)
        }
        return strings
    }

    /// A member of any type, as a required `JSONValue` decodes: null is `.null`, absent is an error.
    func tree(required key: some CodingKey) throws -> JSONValue {
        guard let value = member(key) else { throw missing(key) }
        return value
    }

    /// An object member as a dictionary (the first of a key kept, as the decoder keeps it); nil
    /// when absent or null.
    func object(_ key: some CodingKey) throws -> [String: JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .object(let object) = value else { throw mismatch([String: JSONValue].self, key) }
        return object.dictionary
    }

    /// A nested object's members.
    func object<T>(required key: some CodingKey, as type: T.Type) throws -> TreeFields {
        guard let value = value(key) else { throw missing(key) }
        return try TreeFields(value, as: type, path: path + [key])
    }

    /// A string member that names a case of `T`, refused as the decoder refuses an unknown raw value.
    func rawValue<T: RawRepresentable>(required key: some CodingKey, as type: T.Type) throws -> T where T.RawValue == String {
        let text = try string(required: key)
        guard let value = T(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path + [key], debugDescription: "\(text) is not a \(type)"))
        }
        return value
    }

    func double(_ key: some CodingKey) throws -> Double? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value else { throw mismatch(Double.self, key) }
        return number.value
    }
}

/// An array of a parsed tree, each item read by `read` (nil or null: nil).
func treeItems<T>(_ value: JSONValue?, as type: T.Type, path: [any CodingKey], _ read: (JSONValue, [any CodingKey]) throws -> T) throws -> [T]? {
    guard let value, value != .null else { return nil }
    guard case .array(let items) = value else {
        throw DecodingError.typeMismatch([T].self, .init(codingPath: path, debugDescription: "expected an array"))
    }
    var result: [T] = []
    result.reserveCapacity(items.count)
    for item in items { result.append(try read(item, path)) }
    return result
}
