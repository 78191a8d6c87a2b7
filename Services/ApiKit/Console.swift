import Credentials
import Foundation
import HTTP
import JSON
import Runtime
import Schema
import Synchronization

/// The operators' console at `/console/`: its static pages (HTML, CSS and JavaScript read from a
/// directory at start), sign-in and sign-out, and `/console/api/<REST path>`, which runs the REST
/// API's own route as the signed-in app or admin. A change (any method but GET) needs the session's
/// CSRF token in `X-CSRF-Token`; sign-in needs a JSON body, which no cross-site form can send.
public final class Console: Sendable {
    public static let prefix = "/console"
    static let apiPrefix = "/console/api/"
    let sessions: ConsoleSessions
    let api: Api
    /// File name → its bytes and content type.
    let files: [String: (data: Data, type: String)]
    /// Whether the cookie is marked `Secure` (the api serves HTTPS, or sits behind a TLS proxy).
    let secure: Bool
    let secrets: Secrets
    /// Sign-in attempts per client address: a second's worth and a burst of ten.
    let signIns = Mutex(TokenBuckets<PeerKey>(perSecond: 1, burst: 10))
    let trustedProxies: AddressRanges
    let logger: Logger

    public init(api: Api, secrets: Secrets, directory: String?, sessionMinutes: Int, secure: Bool, trustedProxies: AddressRanges,
                logger: Logger) throws {
        self.api = api
        self.secrets = secrets
        self.secure = secure
        self.trustedProxies = trustedProxies
        self.logger = logger
        sessions = ConsoleSessions(secrets: secrets, lifetime: Double(sessionMinutes) * 60, secure: secure)
        files = try directory.map(Self.load) ?? [:]
    }

    public static func serves(_ path: String) -> Bool { path == prefix || path.hasPrefix(prefix + "/") }

    /// Every regular file directly in `directory`, read once (names only, and no symbolic link:
    /// nothing outside it can be asked for).
    static func load(_ directory: String) throws -> [String: (data: Data, type: String)] {
        var files: [String: (data: Data, type: String)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                  let type = contentTypes[(name as NSString).pathExtension] else { continue }
            files[name] = (try Data(contentsOf: URL(fileURLWithPath: path)), type)
        }
        return files
    }

    static let contentTypes = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
                               "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png"]

    /// No inline script or style, nothing from elsewhere, never framed.
    static let securityHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-store"),
    ]

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let now = Date().timeIntervalSince1970
        let session = sessions.session(of: request.header("Cookie"), now: now)
        var response: HTTPResponse
        do {
            if request.path.hasPrefix(Self.apiPrefix) {
                response = try callAPI(request, session)
            } else if request.path == Self.prefix + "/session" {
                response = try handleSession(request, session, now: now)
            } else {
                response = try file(request)
            }
        } catch let refusal as Refusal {
            response = Api.answer(refusal.status, refusal.body)
        } catch {
            response = Api.answer(500, Refusal(500, Int(ResultCode.internalError.rawValue), "internal error").body)
        }
        response.headers += Self.securityHeaders
        return response
    }

    // MARK: pages

    private func file(_ request: HTTPRequest) throws(Refusal) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var refusal = Refusal(405, Int(ResultCode.pushInvalid.rawValue), "the console's pages take GET only")
            refusal.allow = "GET, HEAD"
            throw refusal
        }
        if request.path == Self.prefix { return HTTPResponse(status: 301, body: Data(), headers: [("Location", Self.prefix + "/")]) }
        let name = String(request.path.dropFirst(Self.prefix.count + 1))
        guard let file = files[name.isEmpty ? "index.html" : name] else { throw Refusal.notFound("no such page") }
        // HEAD too: the server sends the head only, with the body's length.
        return HTTPResponse(status: 200, body: file.data, headers: [("Content-Type", file.type)])
    }

    // MARK: sign-in

    private func handleSession(_ request: HTTPRequest, _ session: ConsoleSessions.Session?, now: Double) throws -> HTTPResponse {
        switch request.method {
        case "GET":
            // Signed out is an answer, not an error: the page asks before it knows.
            guard let session else { return Api.answer(200, .object(["role": .null])) }
            return Api.answer(200, describe(session))
        case "POST":
            guard request.header("Content-Type")?.lowercased().hasPrefix("application/json") == true else {
                throw Refusal(415, Int(ResultCode.pushInvalid.rawValue), "sign in with a JSON body (Content-Type: application/json)")
            }
            guard case .object(let body)? = try? JSONTreeDecoder().decode(JSONValue.self, from: request.body) else {
                throw Refusal.invalid("the body is not a JSON object")
            }
            let client = DeviceEdge.clientAddress(request, trusting: trustedProxies)
            guard signIns.withLock({ $0.allow(PeerKey(address: client), now: Clock.milliseconds()) }) else {
                logger.warning("console sign-in refused: too many from this address", ["client": client])
                throw Refusal(429, Refusal.rateLimited, "too many sign-in attempts from this address; wait a few seconds")
            }
            guard let caller = signIn(body) else {
                logger.notice("console sign-in failed", ["client": client])
                throw Refusal(401, Refusal.unauthorized, "wrong app_key and master secret, or admin secret")
            }
            let (opened, cookie) = sessions.open(caller, now: now)
            return Api.answer(200, describe(opened), [("Set-Cookie", setCookie(cookie, maxAge: Int(sessions.lifetime)))])
        case "DELETE":
            guard let session else { throw Self.signedOut }
            try checkCSRF(request, session)
            sessions.close(session, now: now)
            return Api.answer(200, .object([:]), [("Set-Cookie", setCookie("", maxAge: 0))])
        default:
            var refusal = Refusal(405, Int(ResultCode.pushInvalid.rawValue), "the session takes GET, POST and DELETE")
            refusal.allow = "GET, POST, DELETE"
            throw refusal
        }
    }

    /// `{"app_key", "master_secret"}` or `{"admin_secret"}`, checked as the REST API checks them.
    private func signIn(_ body: JSONObject) -> Caller? {
        if let admin = body["admin_secret"]?.string {
            return HMAC.equal(admin, secrets.admin) ? .admin : nil
        }
        guard let appKey = body["app_key"]?.string, let secret = body["master_secret"]?.string,
              (try? Validate.appKey(appKey)) != nil, HMAC.equal(secret, secrets.masterSecret(appKey: appKey)) else { return nil }
        return .app(appKey)
    }

    private func describe(_ session: ConsoleSessions.Session) -> JSONValue {
        var fields: [String: JSONValue] = ["csrf_token": .string(sessions.csrfToken(session)), "expires": .number(session.expires)]
        switch session.caller {
        case .admin: fields["role"] = .string("admin")
        case .app(let key):
            fields["role"] = .string("app")
            fields["app_key"] = .string(key)
        }
        return .object(fields)
    }

    private func setCookie(_ value: String, maxAge: Int) -> String {
        "\(sessions.cookieName)=\(value); Path=\(sessions.cookiePath); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static let signedOut = Refusal(401, Refusal.unauthorized, "not signed in, or the session expired")

    private func checkCSRF(_ request: HTTPRequest, _ session: ConsoleSessions.Session) throws(Refusal) {
        guard let token = request.header("X-CSRF-Token"), HMAC.equal(token, sessions.csrfToken(session)) else {
            throw Refusal(403, Refusal.unauthorized, "a change needs the session's X-CSRF-Token")
        }
    }

    // MARK: the REST API as the session

    private func callAPI(_ request: HTTPRequest, _ session: ConsoleSessions.Session?) throws -> HTTPResponse {
        guard let session else { throw Self.signedOut }
        if request.method != "GET" && request.method != "HEAD" { try checkCSRF(request, session) }
        var inner = request
        inner.path = "/" + request.path.dropFirst(Self.apiPrefix.count)
        inner.headers.removeAll { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame }
        return api.handle(inner, as: session.caller)
    }
}
