import JSON

/// One endpoint: a method, a path pattern whose `{name}` segments are parameters, who may call it,
/// and what it does. A handler returns the answer's JSON body or throws a `Refusal`.
public struct Route: Sendable {
    public enum Access: Sendable { case app, admin }

    public let method: String
    public let pattern: String
    public let access: Access
    /// The code of a body that is not JSON or not an object (the push API's 1003, the device API's 7002).
    public let badBodyCode: Int
    public let handle: @Sendable (RouteCall) throws -> JSONValue
    /// The pattern split at slashes, and how many of its segments are parameters, once.
    let segments: [Substring]
    let parameterCount: Int

    public init(_ method: String, _ pattern: String, access: Access = .app, badBodyCode: Int = 1003,
                _ handle: @escaping @Sendable (RouteCall) throws -> JSONValue) {
        self.method = method
        self.pattern = pattern
        self.access = access
        self.badBodyCode = badBodyCode
        self.handle = handle
        segments = Router.segments(of: pattern)
        parameterCount = segments.filter { $0.hasPrefix("{") }.count
    }
}
