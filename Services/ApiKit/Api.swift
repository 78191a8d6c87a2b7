import Credentials
import Foundation
import HTTP
import JSON
import Runtime
import Schema

/// The REST API (EngageLab v4, JPush v3, and PushBus's admin endpoints) in front of the bus: finds
/// the route, checks who calls and the app's quota, and answers JSON, every non-2xx answer as
/// `{"error": {"code", "message"}}`. Holds no state of its own beyond the quota's window; called
/// on the HTTP server's threads at once.
public final class Api: Sendable {
    public let router: Router
    private let secrets: Secrets
    private let bus: BusLink
    private let quota: AppQuota
    private let logger: Logger

    public init(secrets: Secrets, bus: BusLink, quota: AppQuota, logger: Logger) {
        self.secrets = secrets
        self.bus = bus
        self.quota = quota
        self.logger = logger
        router = Router(Self.routes)
    }

    /// Every endpoint: EngageLab v4, PushBus's v4 MA reads, JPush v3, admin (docs/openapi.yaml describes each).
    public static let routes = EngageLabRoutes.all + MARoutes.all + ConsoleRoutes.all + JPushRoutes.all + AdminRoutes.all

    /// Answers `request`; `caller`, when given (the console's signed-in session), stands for the
    /// caller its Authorization header would prove.
    public func handle(_ request: HTTPRequest, as caller: Caller? = nil) -> HTTPResponse {
        var appKey: String?
        do {
            let (route, parameters) = try find(request)
            switch (route.access, caller ?? Caller.from(request.authorization, secrets: secrets)) {
            case (.admin, .admin?): break
            case (.app, .app(let key)?): appKey = key
            case (.admin, _): throw Refusal(401, Refusal.unauthorized, "this endpoint takes the admin secret: Authorization: Bearer <admin.secret>")
            case (.app, _): throw Refusal(401, Refusal.unauthorized, "authentication failed: HTTP Basic app_key:master_secret")
            }
            let charge = quotaCharge(appKey)
            guard charge(1) == 1 else {
                throw Refusal(429, Refusal.rateLimited, "more than \(quota.quota) requests in \(quota.windowSeconds) s from this app_key")
            }
            guard !request.bodyTooLarge else { throw Refusal(413, Int(ResultCode.pushTooBig.rawValue), "the body is larger than the server takes") }
            let body = try route.handle(RouteCall(request: request, appKey: appKey, parameters: parameters, route: route, bus: bus, charge: charge))
            return Self.answer(200, body, quotaHeaders(appKey))
        } catch let refusal as Refusal {
            if refusal.status >= 500 { logger.warning("request failed", ["path": request.path, "code": refusal.code, "reason": refusal.message]) }
            var headers = quotaHeaders(appKey)
            if let allow = refusal.allow { headers.append(("Allow", allow)) }
            return Self.answer(refusal.status, refusal.body, headers)
        } catch {
            logger.error("request failed", ["path": request.path, "error": error])
            return Self.answer(500, Refusal(500, Int(ResultCode.internalError.rawValue), "internal error").body, quotaHeaders(appKey))
        }
    }

    /// Takes units of `appKey`'s quota, returning how many it got (all of them for the admin or no limit).
    private func quotaCharge(_ appKey: String?) -> @Sendable (Int) -> Int {
        guard let appKey else { return { $0 } }
        return { [quota] count in quota.take(appKey, upTo: count, now: Int64(Date().timeIntervalSince1970)) }
    }

    /// The X-Rate-Limit headers of `appKey`'s window as it stands once the request is done.
    private func quotaHeaders(_ appKey: String?) -> [(name: String, value: String)] {
        appKey.flatMap { quota.standing($0, now: Int64(Date().timeIntervalSince1970)) }?.headers ?? []
    }

    /// The route of `request`: 404 or 405 otherwise, neither echoing what the client sent (the
    /// path of an absolute URI may carry `user:password@`); a 405 names the methods the path takes.
    private func find(_ request: HTTPRequest) throws(Refusal) -> (Route, [String: String]) {
        switch router.match(method: request.method, path: request.path) {
        case .found(let route, let parameters): return (route, parameters)
        case .wrongMethod(let allowed):
            var refusal = Refusal(405, Int(ResultCode.pushInvalid.rawValue), "this path takes \(allowed.joined(separator: ", ")) only")
            refusal.allow = allowed.joined(separator: ", ")
            throw refusal
        case .unknownPath: throw Refusal.notFound("no such endpoint")
        }
    }

    /// The answer when every handler thread is taken and the queue is full.
    public static let busy = answer(503, Refusal(503, Int(ResultCode.timeout.rawValue), "the server is busy, retry").body, [])

    /// A JSON answer: the REST API's and the console's.
    static func answer(_ status: Int, _ body: JSONValue, _ headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, body: WireCodec.encode(body), headers: [("Content-Type", "application/json; charset=utf-8")] + headers)
    }
}
