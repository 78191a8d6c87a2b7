import Credentials
import Foundation
import Synchronization

/// The console's signed-in sessions. A session is a cookie the api signs with a key derived from
/// server.key and the admin secret, `v1.<principal>.<session id>.<expires>.<mac>`, so every api
/// process of a deployment reads it without shared state, and a new admin secret ends every session;
/// its CSRF token is an HMAC of its id. Signing out forgets the id in this process until it would have
/// expired (other api processes, and this one once restarted, honour the cookie until it expires:
/// keep `lifetime` short).
public final class ConsoleSessions: Sendable {
    public struct Session: Equatable, Sendable {
        public let caller: Caller
        public let id: String
        public let expires: Double
    }

    /// The cookie's name: `__Host-` under TLS, so that no other origin of the host (another port, a
    /// subdomain) can set one the browser would send alongside.
    public let cookieName: String
    /// Its path: `/` as `__Host-` requires, else `/console`.
    public let cookiePath: String
    private let key: String
    /// Seconds a session lasts from sign-in.
    public let lifetime: Double
    /// Ids signed out, with their expiry (dropped once expired, looked for once a minute).
    private let revoked = Mutex<(ids: [String: Double], nextPrune: Double)>(([:], 0))

    public init(secrets: Secrets, lifetime: Double, secure: Bool) {
        key = HMAC.sha256Hex(key: secrets.serverKey, message: Data("console-session\n\(secrets.admin)".utf8))
        self.lifetime = lifetime
        cookieName = secure ? "__Host-pushbus_console" : "pushbus_console"
        cookiePath = secure ? "/" : "/console"
    }

    /// A new session for `caller`, valid `lifetime` seconds from `now`: its cookie value.
    public func open(_ caller: Caller, now: Double) -> (session: Session, cookie: String) {
        var bytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let id = bytes.map { String(format: "%02x", $0) }.joined()
        let session = Session(caller: caller, id: id, expires: (now + lifetime).rounded(.down))
        let body = "v1.\(Self.principal(caller)).\(id).\(Int(session.expires))"
        return (session, body + "." + mac(body))
    }

    /// The session a cookie value proves, nil when it is forged, expired or signed out.
    public func session(cookie: String, now: Double) -> Session? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == "v1", let expires = Double(parts[3]) else { return nil }
        let body = parts[0..<4].joined(separator: ".")
        guard HMAC.equal(parts[4], mac(body)), now < expires else { return nil }
        let caller: Caller
        if parts[1] == "admin" {
            caller = .admin
        } else if parts[1].hasPrefix("app:") {
            caller = .app(String(parts[1].dropFirst(4)))
        } else {
            return nil
        }
        guard revoked.withLock({ $0.ids[parts[2]] }) == nil else { return nil }
        return Session(caller: caller, id: parts[2], expires: expires)
    }

    /// The CSRF token of a session: sent back by the page in `X-CSRF-Token` with every change.
    public func csrfToken(_ session: Session) -> String { mac("csrf." + session.id) }

    /// Signs `session` out in this process.
    public func close(_ session: Session, now: Double) {
        revoked.withLock { revoked in
            // The expired ones go once a minute, not at each sign-out.
            if now >= revoked.nextPrune {
                revoked.ids = revoked.ids.filter { $0.value > now }
                revoked.nextPrune = now + 60
            }
            revoked.ids[session.id] = session.expires
        }
    }

    /// The session in `request`'s cookie, if it proves one. Two cookies of the name are none: a page
    /// of another origin on the same host may have planted one the browser sends first.
    public func session(of cookieHeader: String?, now: Double) -> Session? {
        guard let cookieHeader else { return nil }
        let values = cookieHeader.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix(cookieName + "=") }.map { String($0.dropFirst(cookieName.count + 1)) }
        guard values.count == 1 else { return nil }
        return session(cookie: values[0], now: now)
    }

    private func mac(_ text: String) -> String { HMAC.sha256Hex(key: key, message: Data(text.utf8)) }

    private static func principal(_ caller: Caller) -> String {
        switch caller {
        case .admin: "admin"
        case .app(let key): "app:" + key
        }
    }
}
