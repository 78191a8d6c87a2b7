/// One result row, its columns read by index or by name.
public struct Row: Sendable, Equatable {
    public let names: [String]
    public let values: [Value]

    public subscript(index: Int) -> Value { values[index] }

    public subscript(name: String) -> Value {
        guard let index = names.firstIndex(of: name) else { return .null }
        return values[index]
    }
}
