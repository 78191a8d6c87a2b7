import JSON
import Schema

/// PushBus's own read endpoints, which the console's pages call (as any app's server may): the
/// deployment's apps, an app's messages, an audience's size before a push, and one device whole.
enum ConsoleRoutes {
    static let all: [Route] = [
        Route("GET", "/v1/apps", access: .admin) { call in
            var fields: [String: JSONValue] = [:]
            if let after = call.request.argument("after") { fields["after"] = .string(after) }
            if let limit = call.request.argument("limit") { fields["limit"] = try number(limit, "limit") }
            return try call.call(.appList, fields).withoutEnvelope
        },
        // The app's pushes, newest first: `before` (a msg_id) and `limit` (1...100) page them.
        Route("GET", "/v4/messages") { call in
            var fields: [String: JSONValue] = [:]
            if let before = call.request.argument("before") { fields["before"] = .string(before) }
            if let limit = call.request.argument("limit") { fields["limit"] = try number(limit, "limit") }
            return try call.call(.pushList, fields).withoutEnvelope
        },
        // How many devices `to` reaches now: counted by tagging in one query, never paged through.
        Route("POST", "/v4/audience/estimate") { call in
            guard let to = try call.object()["to"] else { throw Refusal.missing("to is missing") }
            var query: [String: JSONValue] = ["limit": .number(1)]
            switch to {
            case .string("all"): query["all"] = .bool(true)
            case .object(let kinds):
                for (key, value) in kinds.dictionary {
                    guard ["registration_id", "alias", "tag", "tag_and", "tag_not"].contains(key) else {
                        throw Refusal.invalid("to.\(key) cannot be estimated")
                    }
                    query[key] = value
                }
            default: throw Refusal.invalid(#"to must be "all" or an object"#)
            }
            let page = try call.call(.audienceResolve, query)
            return .object(["count": page["total"] ?? .number(0)])
        },
        // One device: its record (tokens masked), tags, alias, badge, whether it is online, and the
        // last messages sent to it with their result.
        Route("GET", "/v4/devices/{registration_id}/detail", badBodyCode: Refusal.deviceRequest) { call in
            let id = call.parameter("registration_id")
            guard case .object(var device) = try DeviceOperations.device(call, id) else { throw Refusal.notFound("no such device") }
            for key in ["apns_token", "voip_token"] { if let token = device[key]?.string { device[key] = .string(mask(token)) } }
            for key in ["live_activity_tokens", "live_activity_start_tokens"] {
                guard case .object(let tokens)? = device[key] else { continue }
                var masked: [String: JSONValue] = [:]
                for (name, token) in tokens.dictionary { masked[name] = token.string.map { .string(mask($0)) } ?? .null }
                device[key] = .object(JSONObject(masked))
            }
            let named: [String: JSONValue] = ["registration_id": .string(id)]
            let status = try DeviceOperations.liveStatus(call, [id])?[id] ?? .null
            let history = try call.call(.pushDeviceHistory, named)["deliveries"] ?? .array([])
            return .object([
                "device": .object(device),
                "tags": try call.call(.tagsGet, named)["tags"] ?? .array([]),
                "alias": try call.call(.aliasGet, named)["alias"] ?? .null,
                "badge": try call.call(.badgeValues, ["registration_ids": .array([.string(id)])])["values"]?[id] ?? .null,
                "online": status["online"] ?? .null,
                "last_online_time": status["last_online_time"] ?? .null,
                "messages": history,
            ])
        },
    ]

    /// A token shown as its first and last 4 characters: enough to tell two apart, useless to send with.
    static func mask(_ token: String) -> String {
        token.count <= 12 ? String(repeating: "•", count: token.count) : "\(token.prefix(4))…\(token.suffix(4))"
    }

    private static func number(_ text: String, _ name: String) throws(Refusal) -> JSONValue {
        guard let value = Int(text) else { throw Refusal.invalid("\(name) must be a whole number") }
        return .number(Double(value))
    }
}
