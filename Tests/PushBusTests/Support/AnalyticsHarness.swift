import Foundation
import JSON
import Schema
@testable import AnalyticsKit

/// An analytics handler on a temporary database with a manual clock, and short ways to call it with
/// payloads written as JSON text (as the seed's examples read).
struct AnalyticsHarness {
    let clock = ManualClock()
    let directory = TestPaths.temporaryDirectory("analytics")
    let handler: AnalyticsHandler
    let app = "app1"
    /// The EUID of the install `iphone-1`, started with the harness.
    private(set) var euid = ""

    init(settings: AnalyticsSettings = AnalyticsSettings()) throws {
        let clock = self.clock
        handler = try AnalyticsHandler(path: "\(directory)/analytics.sqlite", settings: settings, clock: { clock.now })
        euid = start()
    }

    /// A second handler on the same database, as after a restart.
    func reopened() throws -> AnalyticsHandler {
        let clock = self.clock
        return try AnalyticsHandler(path: "\(directory)/analytics.sqlite", clock: { clock.now })
    }

    /// Calls `command` with exactly this payload.
    func call(_ command: String, _ payload: String) -> JSONValue {
        reply(handler, command, object(payload))
    }

    /// Calls an MA command for `euid` of the harness's app: `payload` plus `app_key` and `euid`.
    func ma(_ command: String, _ euid: String, _ payload: String = "{}") -> JSONValue {
        reply(handler, command, object(payload).merging(["app_key": app.json, "euid": euid.json]) { given, _ in given })
    }

    /// `ma.property` for `euid`.
    func property(_ euid: String, _ payload: String) -> JSONValue { ma("ma.property", euid, payload) }

    /// The EUID `ma.start` gives an install, with optional identifiers (`user`, JSON text).
    func start(_ device: String = "iphone-1", app: String? = nil, user: String? = nil) -> String {
        var payload: [String: JSONValue] = ["app_key": (app ?? self.app).json, "device_id": device.json]
        if let user { payload["user"] = .object(object(user)) }
        return reply(handler, "ma.start", payload)["euid"]?.string ?? ""
    }

    func profile(_ euid: String) -> JSONValue { ma("ma.profile", euid) }
    func properties(_ euid: String) -> JSONValue? { profile(euid)["properties"] }

    /// Settles the unverified message reports as `ReportVerifier` does, with push's answers given
    /// here rather than over the bus: `targets` maps each msg_id push knows to its target devices,
    /// and push refuses any other (not a message of the app). Returns how many reports were counted.
    @discardableResult
    func verify(_ targets: [String: [String]]) throws -> Int {
        let store = handler.storage.store
        var check = TargetCheck(try store.read { db in try ReportStore().unverified(db, limit: ReportVerifier.batch) })
        if let silence = check.ask({ question in try Self.push(targets, question) }) { throw silence }
        return try store.write { db in try ReportStore().settle(db, check.verdicts) }
    }

    /// push's answer to `question` when `targets` are its messages' targets: `sent` for a target,
    /// `not_target` for any other device, 1003 for a msg_id it does not know.
    static func push(_ targets: [String: [String]], _ question: PushDeviceStatusQuery) throws -> PushDeviceStatusReply {
        guard let devices = targets[question.msgID ?? ""] else { throw CommandError.badField("msg_id is not a message of this app") }
        return PushDeviceStatusReply(devices: Dictionary(uniqueKeysWithValues: (question.registrationIDs ?? []).map { id in
            (id, DeliveryStatus(status: devices.contains(id) ? "sent" : "not_target"))
        }))
    }

    /// The result object in an `ma.identify` reply's `message`.
    func fieldResults(_ reply: JSONValue) -> JSONValue? {
        reply["message"]?.string.flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
    }
}

/// A JSON value from its text; text that is not JSON gives `.null`.
func json(_ text: String) -> JSONValue {
    (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .null
}

/// A JSON object from its text, empty when the text is not one.
func object(_ text: String) -> [String: JSONValue] {
    if case .object(let fields) = json(text) { return fields.dictionary }
    return [:]
}
