import ApiKit
import Credentials
import Foundation
import Testing

/// The console's session cookie on its own: what it proves, and what it must not.
@Suite("console sessions")
struct ConsoleSessionTests {
    let secrets = Secrets(admin: String(repeating: "a", count: 64), serverKey: String(repeating: "k", count: 64))
    var sessions: ConsoleSessions { ConsoleSessions(secrets: secrets, lifetime: 600, secure: false) }

    @Test("a cookie proves its caller until it expires; altered, it proves nothing")
    func aCookieProvesItsCaller() {
        let sessions = self.sessions
        let (opened, cookie) = sessions.open(.app("appa"), now: 1000)
        #expect(sessions.session(cookie: cookie, now: 1001) == opened)
        #expect(sessions.session(cookie: cookie, now: 1600) == nil, "expired")
        #expect(sessions.session(cookie: cookie.replacingOccurrences(of: "app:appa", with: "app:appb"), now: 1001) == nil)
        #expect(sessions.session(cookie: cookie.replacingOccurrences(of: "app:appa", with: "admin"), now: 1001) == nil)
        #expect(sessions.session(cookie: cookie.replacingOccurrences(of: ".1600.", with: ".9999."), now: 1001) == nil)
    }

    @Test("a new admin secret ends every session, the admin's and the apps'")
    func aNewAdminSecretEndsSessions() {
        let (_, admin) = sessions.open(.admin, now: 1000)
        let (_, app) = sessions.open(.app("appa"), now: 1000)
        let rotated = ConsoleSessions(secrets: Secrets(admin: String(repeating: "b", count: 64), serverKey: secrets.serverKey), lifetime: 600, secure: false)
        #expect(rotated.session(cookie: admin, now: 1001) == nil)
        #expect(rotated.session(cookie: app, now: 1001) == nil)
        #expect(sessions.session(cookie: admin, now: 1001)?.caller == .admin, "the same secrets still read it")
    }

    @Test("two cookies of the name prove nothing (one may be planted by another origin of the host); under TLS the name is __Host-")
    func twoCookiesProveNothing() {
        let sessions = self.sessions
        let (_, mine) = sessions.open(.app("appa"), now: 1000)
        let (_, planted) = sessions.open(.app("appb"), now: 1000)
        #expect(sessions.session(of: "pushbus_console=\(mine)", now: 1001)?.caller == .app("appa"))
        #expect(sessions.session(of: "pushbus_console=\(planted); pushbus_console=\(mine)", now: 1001) == nil)
        #expect(sessions.session(of: "other=1; pushbus_console=\(mine)", now: 1001)?.caller == .app("appa"))
        let secure = ConsoleSessions(secrets: secrets, lifetime: 600, secure: true)
        #expect(secure.cookieName == "__Host-pushbus_console" && secure.cookiePath == "/")
    }

    @Test("a signed-out session proves nothing in this process")
    func signedOutIsOut() {
        let sessions = self.sessions
        let (opened, cookie) = sessions.open(.admin, now: 1000)
        sessions.close(opened, now: 1001)
        #expect(sessions.session(cookie: cookie, now: 1002) == nil)
    }
}
