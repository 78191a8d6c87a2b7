import JSON
import Schema

/// PushBus's own v4 endpoints for MA (what the MTMAService SDK wrote): an app's server reads a
/// user's profile, erases a user, and counts events (sessions as `$session`) by hour or day.
enum MARoutes {
    static let all: [Route] = [
        // The user's properties, identities (user_id, anonymous_id, email, phone), contacts and channel values.
        Route("GET", "/v4/ma/users/{euid}") { call in
            try user(call, .maProfile)
        },
        // The right to erasure: everything kept about the user, its EUID then unknown (404).
        Route("DELETE", "/v4/ma/users/{euid}") { call in
            try user(call, .maErase)
        },
        // `from`, `to` (RFC 3339), `bucket` hour (default) or day, `name?` (one event; `$session` for sessions).
        Route("GET", "/v4/ma/events") { call in
            let request = call.request
            guard let from = request.argument("from"), let to = request.argument("to") else {
                throw Refusal.missing("from and to are required (RFC 3339)")
            }
            var fields: [String: JSONValue] = ["from": .string(from), "to": .string(to), "bucket": .string(request.argument("bucket") ?? "hour")]
            if let name = request.argument("name") { fields["name"] = .string(name) }
            return try call.call(.statsEvents, fields).withoutEnvelope
        },
    ]

    /// `command` for the path's EUID; an EUID the app does not have (-2 from analytics) is 404.
    private static func user(_ call: RouteCall, _ command: Command) throws(Refusal) -> JSONValue {
        try PushOperations.unknownIsNotFound("user with this euid", unknown: .maNotStarted) { () throws(Refusal) in
            try call.call(command, ["euid": .string(call.parameter("euid"))]).withoutEnvelope
        }
    }
}
