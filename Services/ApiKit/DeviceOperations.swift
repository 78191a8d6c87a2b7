import JSON
import Schema

/// The device, tag and alias endpoints that EngageLab v4 and JPush v3 share, each a few bus
/// commands signed as the app. Every device a route names is first looked up in registration,
/// which answers only for the app's own devices: another app's registration ID is 404 (7002) with
/// the same message as an unknown one, before any other service hears of it.
enum DeviceOperations {
    /// How many registration IDs one tag change or status query may name (JPush: 1000).
    static let maxDevicesPerCall = 1000

    /// What registration keeps of the app's device; 404 when the app has no such device.
    static func device(_ call: RouteCall, _ registrationID: String) throws(Refusal) -> JSONValue {
        do {
            return try call.call(.deviceGet, ["registration_id": .string(registrationID)])["device"] ?? .null
        } catch where error.status == 400 || error.status == 403 {
            throw Refusal(404, Refusal.deviceRequest, "no device \(registrationID.prefix(64)) in this app")
        }
    }

    /// `tags`, `alias` and `mobile` of a device.
    static func info(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let id = call.parameter("registration_id")
        let device = try device(call, id)
        let tags = try call.call(.tagsGet, ["registration_id": .string(id)])["tags"] ?? .array([])
        let alias = try call.call(.aliasGet, ["registration_id": .string(id)])["alias"] ?? .null
        return .object(["tags": tags, "alias": alias, "mobile": device["mobile"] ?? .null])
    }

    /// `tags` (`{"add": [], "remove": []}`, or "" to clear them), `alias` ("" to remove it) and
    /// `mobile` ("" to unbind it), in that order; the first refusal ends the call.
    static func update(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let id = call.parameter("registration_id")
        let body = try call.object()
        _ = try device(call, id)
        let device: [String: JSONValue] = ["registration_id": .string(id)]
        switch body["tags"] {
        case nil, .null?: break
        case .string("")?: _ = try call.call(.tagsClean, device)
        case .object(let change)?:
            for (key, command) in [("add", Command.tagsAdd), ("remove", Command.tagsDelete)] {
                guard let value = change[key], value != .null else { continue }
                guard let names = value.strings else { throw Refusal.badRequest(Refusal.deviceRequest, "tags.\(key) must be an array of strings") }
                if !names.isEmpty { _ = try call.call(command, device.merging(["tags": .array(names.map(JSONValue.string))]) { $1 }) }
            }
        default: throw Refusal.badRequest(Refusal.deviceRequest, #"tags must be {"add": [...], "remove": [...]} or "" to clear them"#)
        }
        switch body["alias"] {
        case nil, .null?: break
        case .string("")?: _ = try call.call(.aliasDelete, device)
        case .string(let alias)?: _ = try call.call(.aliasSet, device.merging(["alias": .string(alias)]) { $1 })
        default: throw Refusal.badRequest(Refusal.deviceRequest, "alias must be a string")
        }
        switch body["mobile"] {
        case nil: break
        case .null?, .string?: _ = try call.call(.deviceMobile, device.merging(["mobile": body["mobile"] ?? .null]) { $1 })
        default: throw Refusal.badRequest(Refusal.deviceRequest, "mobile must be a string")
        }
        return .object([:])
    }

    static func delete(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let id = call.parameter("registration_id")
        _ = try device(call, id)
        _ = try call.call(.deviceDelete, ["registration_id": .string(id)])
        return .object([:])
    }

    /// Per device `online` and `last_online_time`, as the device channel knows them (`devices.status`);
    /// a device that never connected reports registration's last contact with it. A deployment that
    /// runs no channel (the gateway finds no worker in time) has no device online.
    static func status(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let ids = try registrationIDs(in: call.object(), field: "registration_ids")
        var lastContact: [String: JSONValue] = [:]
        for id in ids { lastContact[id] = try device(call, id)["updated_at"] ?? .null }
        let live = try liveStatus(call, ids)
        var devices: [String: JSONValue] = [:]
        for id in ids {
            let status = live?[id]
            devices[id] = .object(["online": status?["online"] ?? .bool(false),
                                   "last_online_time": status?["last_online_time"] ?? lastContact[id] ?? .null])
        }
        return .object(devices)
    }

    /// `devices.status` from the device channel: registration ID → `online`, `last_online_time`; nil
    /// when no channel answers (none runs, or it is away): then whether they are online is unknown.
    static func liveStatus(_ call: RouteCall, _ ids: [String]) throws(Refusal) -> JSONValue? {
        do {
            return try call.call(.devicesStatus, ["registration_ids": .array(ids.map(JSONValue.string))])["devices"]
        } catch where error.status == 503 {
            return nil
        }
    }

    static func tags(_ call: RouteCall) throws(Refusal) -> JSONValue {
        .object(["tags": try call.call(.tagsList)["tags"] ?? .array([])])
    }

    /// Adds the tag to some devices and removes it from others: `{"registration_ids": {"add", "remove"}}`.
    /// Every device named is looked up first: one that is not the app's is 404 and nothing changes.
    static func changeTag(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let tag = call.parameter("tag")
        guard case .object(let change)? = try call.object()["registration_ids"] else {
            throw Refusal.badRequest(Refusal.deviceRequest, #"registration_ids must be {"add": [...], "remove": [...]}"#)
        }
        let changes = [(try registrationIDs(in: change, field: "add", required: false), Command.tagsAdd),
                       (try registrationIDs(in: change, field: "remove", required: false), Command.tagsDelete)]
        var looked: Set<String> = []
        for id in changes.flatMap(\.0) where looked.insert(id).inserted { _ = try device(call, id) }
        for (ids, command) in changes {
            for id in ids { _ = try call.call(command, ["registration_id": .string(id), "tags": .array([.string(tag)])]) }
        }
        return .object([:])
    }

    /// Removes the tag from every device of the app that has it, a page at a time.
    static func deleteTag(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let tag = call.parameter("tag")
        while true {
            let page = try call.call(.audienceResolve, ["tag": .array([.string(tag)]), "limit": .number(1000)])
            let ids = page["registration_ids"]?.strings ?? []
            for id in ids { _ = try call.call(.tagsDelete, ["registration_id": .string(id), "tags": .array([.string(tag)])]) }
            if ids.isEmpty { break }
        }
        return .object([:])
    }

    static func hasTag(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let id = call.parameter("registration_id")
        _ = try device(call, id)
        let reply = try call.call(.tagsValid, ["registration_id": .string(id), "tag": .string(call.parameter("tag"))])
        return .object(["result": reply["is_bind"] ?? .bool(false)])
    }

    static func aliasDevices(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let reply = try call.call(.aliasLookup, ["alias": .string(call.parameter("alias"))])
        return .object(["registration_ids": reply["registration_ids"] ?? .array([])])
    }

    /// Unbinds the alias from every device of the app that has it.
    static func deleteAlias(_ call: RouteCall) throws(Refusal) -> JSONValue {
        let ids = try call.call(.aliasLookup, ["alias": .string(call.parameter("alias"))])["registration_ids"]?.strings ?? []
        for id in ids { _ = try call.call(.aliasDelete, ["registration_id": .string(id)]) }
        return .object([:])
    }

    /// The registration IDs listed in `field`: strings, at most `maxDevicesPerCall`.
    static func registrationIDs(in object: JSONObject, field: String, required: Bool = true) throws(Refusal) -> [String] {
        guard let value = object[field], value != .null else {
            if required { throw Refusal.badRequest(Refusal.deviceRequest, "\(field) is missing") }
            return []
        }
        guard let ids = value.strings else { throw Refusal.badRequest(Refusal.deviceRequest, "\(field) must be an array of strings") }
        guard ids.count <= maxDevicesPerCall else {
            throw Refusal.badRequest(Refusal.deviceRequest, "\(field) names \(ids.count) devices; at most \(maxDevicesPerCall)")
        }
        return ids
    }
}
