/// A reply with nothing besides `code` (and `seq`).
public struct Empty: Codable, Equatable, Sendable {
    public init() {}
}
