import Foundation

/// One HTTP request as a handler sees it: its head, its body read to the end (or cut at the
/// server's limit), and the client's address.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, as sent (`/v4/devices/abc`).
    public var path: String
    /// The query's arguments in order; a name may come more than once (`tags=a&tags=b`).
    public var query: [(name: String, value: String)]
    /// The request's headers in order, names as sent.
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// Whether the body was longer than the server takes (the part beyond it was dropped).
    public var bodyTooLarge: Bool
    /// The address of the client's end of the connection ("192.0.2.1"), "" when unknown.
    public var peer: String
    /// The port of the client's end of the connection, 0 when unknown.
    public var peerPort = 0

    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = [],
                authorization: String? = nil, body: Data = Data(), bodyTooLarge: Bool = false, peer: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        if let authorization { self.headers.append(("Authorization", authorization)) }
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.peer = peer
    }

    /// The first header named `name`, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The `Authorization` header, if any.
    public var authorization: String? { header("Authorization") }

    /// The first value of query argument `name`.
    public func argument(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Every value of `name`, each also split at commas (`tags=a,b&tags=c` is a, b, c).
    public func list(_ name: String) -> [String] {
        query.filter { $0.name == name }.flatMap { $0.value.split(separator: ",").map(String.init) }
    }
}

/// What a handler answers: a status, a body and its headers.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var body: Data
    public var headers: [(name: String, value: String)]

    public init(status: Int, body: Data, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// A plain-text answer.
    public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, body: Data(text.utf8), headers: [("Content-Type", "text/plain; charset=utf-8")] + headers)
    }
}
