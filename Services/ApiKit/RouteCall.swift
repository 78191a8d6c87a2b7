import Foundation
import HTTP
import JSON
import Schema

/// One request on its way through a route: who called, the path's parameters, the body as JSON,
/// bus calls signed as the caller's app with its `app_key` filled in, and the app's quota.
public struct RouteCall: Sendable {
    public let request: HTTPRequest
    /// The app that called (nil on admin routes).
    public let appKey: String?
    public let parameters: [String: String]
    let route: Route
    let bus: BusLink
    /// Takes up to that many units of the app's quota beyond the one the request itself took (a
    /// batch push costs one per push) and returns how many the window had left: all of them for the
    /// admin or an app without a limit.
    let charge: @Sendable (Int) -> Int

    /// Path parameter `name` (the router only matches when it is there).
    public func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The body as a JSON object; a body that is absent, not JSON or not an object is refused.
    public func object() throws(Refusal) -> JSONObject {
        guard !request.body.isEmpty else { throw Refusal.badRequest(route.badBodyCode, "the request has no JSON body") }
        guard case .object(let object)? = try? JSONTreeDecoder().decode(JSONValue.self, from: request.body) else {
            throw Refusal.badRequest(route.badBodyCode, "the body is not a JSON object")
        }
        return object
    }

    /// Calls `command` as the app with `fields` and the app's `app_key`.
    public func call(_ command: Command, _ fields: [String: JSONValue] = [:]) throws(Refusal) -> JSONValue {
        var fields = fields
        if let appKey { fields["app_key"] = .string(appKey) }
        return try bus.call(command, .object(fields))
    }
}

extension JSONValue {
    /// The reply without the envelope's `code`, `message` and `seq`.
    var withoutEnvelope: JSONValue {
        guard case .object(let object) = self else { return self }
        return .object(object.dictionary.filter { !["code", "message", "seq"].contains($0.key) })
    }

    /// The strings of an array (nil when it is not an array of strings).
    var strings: [String]? {
        guard case .array(let items) = self else { return nil }
        let strings = items.compactMap(\.string)
        return strings.count == items.count ? strings : nil
    }
}
