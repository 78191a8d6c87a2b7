import JSON
import Schema

/// PushBus's own admin endpoints, with the deployment's admin secret as a Bearer token: create an
/// app (its `app_key` and `master_secret`), and set an app's APNs key.
enum AdminRoutes {
    static let all: [Route] = [
        Route("POST", "/v1/apps", access: .admin) { call in
            let body = try call.object()
            var fields: [String: JSONValue] = ["name": body["name"] ?? .null]
            fields["app_key"] = body["app_key"]
            return try call.call(.appCreate, fields).withoutEnvelope
        },
        Route("PUT", "/v1/apps/{app_key}/apns", access: .admin) { call in
            let body = try call.object()
            var fields = body.dictionary.filter { ["team_id", "key_id", "bundle_id", "p8"].contains($0.key) }
            fields["app_key"] = .string(call.parameter("app_key"))
            _ = try call.call(.apnsCredentials, fields)
            return .object([:])
        },
    ]
}
