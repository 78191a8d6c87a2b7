import Foundation
import JSON
import Testing

/// The REST API's device routes name another app's device exactly as they name one that does not
/// exist: an app learns nothing of other apps' registration IDs. Real gateway, registration,
/// tagging and api processes.
@Suite("REST API device scope (integration)", .serialized)
struct ApiDeviceScopeTests {
    /// Every route that names registration IDs: method, path and body for a device `id`.
    static let routes: [(method: String, path: @Sendable (String) -> String, body: @Sendable (String) -> JSONValue?)] = [
        ("GET", { "/v4/devices/\($0)" }, { _ in nil }),
        ("POST", { "/v4/devices/\($0)" }, { _ in .object(["alias": "taken".json, "tags": .object(["add": .array(["x".json])])]) }),
        ("DELETE", { "/v4/devices/\($0)" }, { _ in nil }),
        ("POST", { _ in "/v4/devices/status" }, { .object(["registration_ids": .array([.string($0)])]) }),
        ("POST", { _ in "/v4/tags/vip" }, { .object(["registration_ids": .object(["add": .array([.string($0)])])]) }),
        ("POST", { _ in "/v4/tags/vip" }, { .object(["registration_ids": .object(["remove": .array([.string($0)])])]) }),
        ("GET", { "/v4/tags/vip/registration_ids/\($0)" }, { _ in nil }),
        ("GET", { "/v3/devices/\($0)" }, { _ in nil }),
        ("POST", { "/v3/devices/\($0)" }, { _ in .object(["mobile": "+8613800000000".json]) }),
        ("POST", { _ in "/v3/devices/status" }, { .object(["registration_ids": .array([.string($0)])]) }),
        ("POST", { _ in "/v3/tags/vip" }, { .object(["registration_ids": .object(["add": .array([.string($0)])])]) }),
        ("POST", { _ in "/v3/tags/vip" }, { .object(["registration_ids": .object(["remove": .array([.string($0)])])]) }),
        ("GET", { "/v3/tags/vip/registration_ids/\($0)" }, { _ in nil }),
    ]

    @Test func anotherAppsDeviceIsAnsweredAsAnUnknownOneOnEveryDeviceRoute() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        let mine = try client.register(appKey: "scopeapp", deviceID: "mine")
        let theirs = try client.register(appKey: "otherapp", deviceID: "theirs")
        // Tagging learns devices from registration's events: wait until it knows the other app's.
        let known = try eventually(15) {
            let page = try client.json("audience.resolve", ["app_key": "otherapp".json, "all": .bool(true), "limit": .number(10)])
            return page["registration_ids"]?.arrayStrings?.contains(theirs) == true
        }
        #expect(known, "tagging never learnt the other app's device")
        let unknown = String(theirs.reversed())
        let api = try ApiServer(stack: stack, extra: ["--app-quota", "0"])

        for route in Self.routes {
            let what = "\(route.method) \(route.path("{id}"))"
            let other = try api.send(route.method, route.path(theirs), route.body(theirs), authorization: api.basic("scopeapp"))
            let none = try api.send(route.method, route.path(unknown), route.body(unknown), authorization: api.basic("scopeapp"))
            #expect(other.status == 404 && other.body["error"]?["code"]?.number == 7002, "\(what): \(other.status) \(other.body)")
            #expect(other.status == none.status && other.body["error"]?["code"] == none.body["error"]?["code"], "\(what): \(other.body) vs \(none.body)")
            let said = other.body["error"]?["message"]?.string?.replacingOccurrences(of: theirs, with: "{id}")
            #expect(said != nil && said == none.body["error"]?["message"]?.string?.replacingOccurrences(of: unknown, with: "{id}"),
                    "\(what): \(other.body) vs \(none.body)")
        }

        // A tag change that names one device not the app's changes nothing, not even the app's own.
        let mixed = try api.send("POST", "/v4/tags/vip", .object(["registration_ids": .object(["add": .array([.string(mine), .string(theirs)])])]),
                                 authorization: api.basic("scopeapp"))
        #expect(mixed.status == 404, "\(mixed.body)")
        #expect(try client.json("tags.get", ["app_key": "scopeapp".json, "registration_id": .string(mine)])["tags"] == .array([]))
        #expect(try client.json("tags.get", ["app_key": "otherapp".json, "registration_id": .string(theirs)])["tags"] == .array([]))
        #expect(try client.json("alias.get", ["app_key": "otherapp".json, "registration_id": .string(theirs)])["alias"] == .null)
        let device = try client.json("device.get", ["app_key": "otherapp".json, "registration_id": .string(theirs)])
        #expect(device.code == 0 && (device["device"]?["mobile"] ?? .null) == .null, "\(device)")
    }
}
