import CCrypto
import Foundation

/// The HTTP side of the opening handshake (RFC 6455 §4.2): whether a request may upgrade and what
/// the answer carries. Pure: the server's request callback feeds it the request's headers.
public enum WebSocketHandshake {
    /// What to answer a request with.
    public enum Answer: Equatable, Sendable {
        /// 101 Switching Protocols with `Upgrade: websocket` and this `Sec-WebSocket-Accept`.
        case upgrade(accept: String)
        /// A plain HTTP error, no upgrade.
        case reject(status: UInt32, body: String, headers: [String: String])
    }

    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Judges a request for `path` against the server's `expectedPath`: 404 for another path, 400
    /// for a method other than GET, a missing `Connection: upgrade` or a malformed key, 426 without
    /// `Upgrade: websocket` or with a version other than 13. `header` looks a request header up by
    /// name, case-insensitively.
    public static func answer(method: String, path: String, expectedPath: String,
                              header: (String) -> String?) -> Answer {
        guard path == expectedPath else { return .reject(status: 404, body: "not found\n", headers: [:]) }
        guard method == "GET" else { return .reject(status: 400, body: "websocket upgrade needs GET\n", headers: [:]) }
        guard let upgrade = header("Upgrade"), hasToken(upgrade, "websocket") else {
            return .reject(status: 426, body: "websocket upgrade required\n", headers: ["Upgrade": "websocket"])
        }
        guard let connection = header("Connection"), hasToken(connection, "upgrade") else {
            return .reject(status: 400, body: "Connection: upgrade required\n", headers: [:])
        }
        guard header("Sec-WebSocket-Version")?.trimmingCharacters(in: .whitespaces) == "13" else {
            return .reject(status: 426, body: "websocket version 13 required\n", headers: ["Sec-WebSocket-Version": "13"])
        }
        guard let key = header("Sec-WebSocket-Key")?.trimmingCharacters(in: .whitespaces),
              Data(base64Encoded: key)?.count == 16 else {
            return .reject(status: 400, body: "bad Sec-WebSocket-Key\n", headers: [:])
        }
        return .upgrade(accept: accept(key: key))
    }

    /// `Sec-WebSocket-Accept` for `key`: base64 of SHA-1 over the key and the RFC's GUID.
    public static func accept(key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        var size: UInt32 = 0
        let done = input.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &size, EVP_sha1(), nil) }
        precondition(done == 1 && size == 20, "libcrypto SHA-1 failed")
        return Data(digest).base64EncodedString()
    }

    /// Whether a comma-separated header value lists `token`, case-insensitively.
    static func hasToken(_ value: String, _ token: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == token }
    }
}
