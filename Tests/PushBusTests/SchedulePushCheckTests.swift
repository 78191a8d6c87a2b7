import Foundation
import JSON
import Schema
import Testing
import Worker
@testable import SchedulerKit

/// `schedule.create` and `schedule.update` have push validate the push a schedule will send before
/// it is stored, and an app keeps a bounded number of schedules: the questions the handler asks and
/// what it does with push's answers, on a temporary database without a bus.
@Suite("scheduled pushes: checked by push, capped per app")
struct SchedulePushCheckTests {
    static let trigger: JSONValue = .object(["single": .object(["time": "2025-03-02 09:00:00".json])])
    static let body: JSONValue = .object(["platform": "ios".json, "notification": .object(["alert": "Morning".json])])

    static func push(_ to: JSONValue) -> JSONValue { .object(["to": to, "body": body]) }

    static func create(_ name: String = "morning", to: JSONValue = .object(["tag": .array(["news".json])]),
                       app: String = "app1") -> [String: JSONValue] {
        ["app_key": app.json, "name": name.json, "trigger": trigger, "push": push(to)]
    }

    /// What push answers `push.validate`: accepted, refused with `code`, or nothing in time (nil).
    static func answer(_ code: Int?, _ message: String = "refused") -> Inquiry.Answer {
        let reply = code.map { code in
            WireCodec.encode(JSONValue.object(code == 0 ? ["code": .number(0)] : ["code": .number(Double(code)), "message": message.json]))
        }
        return Inquiry.Answer(command: .pushValidate, reply: reply)
    }

    func inquiries(_ harness: SchedulerHarness, _ command: Command, _ payload: [String: JSONValue]) throws -> [Inquiry] {
        try harness.handler.inquiries(command, Request(command, JSONValue.object(payload)))
    }

    func total(_ harness: SchedulerHarness, app: String = "app1") -> Double? {
        reply(harness.handler, "schedule.list", ["app_key": app.json])["total_count"]?.number
    }

    @Test func createAsksPushToValidateThePushTheFirerWillSend() throws {
        let harness = try SchedulerHarness()
        #expect(harness.handler.inquiring == [.scheduleCreate, .scheduleUpdate])
        let asked = try inquiries(harness, .scheduleCreate, Self.create())
        #expect(asked.count == 1, "a tag audience is asked once")
        let question = try #require(asked.first)
        #expect(question.command == .pushValidate)
        let sent = try JSONDecoder().decode(PushSend.self, from: question.payload)
        #expect(sent.appKey == "app1")
        #expect(sent.to == .object(["tag": .array(["news".json])]))
        let cid = try #require(sent.body?["options"]?["cid"]?.string)
        let firer = ScheduleFirer.send(appKey: "app1", scheduleID: String(repeating: "0", count: 32), push: Self.push(sent.to ?? .null),
                                       fireAt: instant("2025-03-02T09:00:00Z"))
        #expect(cid.hasPrefix("sched:") && cid.utf8.count == firer.body?["options"]?["cid"]?.string?.utf8.count, "\(cid)")
        #expect(sent.body?["notification"] == firer.body?["notification"] && sent.body?["platform"] == firer.body?["platform"])

        // Named devices are asked a second time, alone: were the tags the only reason for no device?
        let mixed = try inquiries(harness, .scheduleCreate,
                                  Self.create(to: .object(["tag": .array(["news".json]), "registration_id": .array(["r1".json])])))
        #expect(mixed.count == 2)
        let narrowed = try JSONDecoder().decode(PushSend.self, from: try #require(mixed.last).payload)
        #expect(narrowed.to == .object(["registration_id": .array(["r1".json])]))

        // A request wrong in itself is refused before anything is asked.
        #expect(throws: CommandError.self) { _ = try inquiries(harness, .scheduleCreate, Self.create("a\u{0}b")) }
        var pushless = Self.create()
        pushless["push"] = nil
        #expect(throws: CommandError.self) { _ = try inquiries(harness, .scheduleCreate, pushless) }

        // An update asks only when it changes the push.
        #expect(try inquiries(harness, .scheduleUpdate, ["app_key": "app1".json, "schedule_id": "x".json, "name": "n".json]).isEmpty)
        #expect(try inquiries(harness, .scheduleUpdate, ["app_key": "app1".json, "schedule_id": "x".json,
                                                         "push": Self.push("all".json)]).count == 1)
    }

    @Test func pushsRefusalIsTheSchedulesAndNothingIsStored() throws {
        let harness = try SchedulerHarness()
        let refused = reply(harness.handler, "schedule.create", Self.create(),
                            answers: [Self.answer(1003, #"badge must be N, "+N" or "-N" with N in 0...99"#)])
        #expect(refused.code == 1003 && refused["message"]?.string == #"badge must be N, "+N" or "-N" with N in 0...99"#, "\(refused)")
        #expect(reply(harness.handler, "schedule.create", Self.create(), answers: [Self.answer(1005)]).code == 1005)
        let silent = reply(harness.handler, "schedule.create", Self.create(), answers: [Self.answer(nil)])
        #expect(silent.code == 6002, "no answer in time: \(silent)")
        #expect(total(harness) == 0)

        #expect(reply(harness.handler, "schedule.create", Self.create(), answers: [Self.answer(0)]).code == 0)
        #expect(reply(harness.handler, "schedule.create", Self.create(), answers: []).code == 0, "a test without a bus asks nothing")
        #expect(total(harness) == 2)
    }

    @Test func anEmptyAudienceIsRefusedOnlyWhenItsNamedDevicesAreNotTheApps() throws {
        let harness = try SchedulerHarness()
        let named = Self.create(to: .object(["registration_id": .array(["other".json])]))
        // Tags (or all) with no device yet: devices may come before it fires.
        #expect(reply(harness.handler, "schedule.create", Self.create(), answers: [Self.answer(1011)]).code == 0)
        // Registration IDs none of which is the app's: push's 1011.
        let stranger = reply(harness.handler, "schedule.create", named, answers: [Self.answer(1011, "the audience has no device"),
                                                                                   Self.answer(1011, "the audience has no device")])
        #expect(stranger.code == 1011 && stranger["message"]?.string == "the audience has no device", "\(stranger)")
        // The app's own device, under a tag nobody has yet.
        #expect(reply(harness.handler, "schedule.create", named, answers: [Self.answer(1011), Self.answer(0)]).code == 0)
        #expect(reply(harness.handler, "schedule.create", named, answers: [Self.answer(1011), Self.answer(nil)]).code == 6002)
        #expect(total(harness) == 2)
    }

    @Test func anUpdateWhosePushIsRefusedLeavesTheScheduleAsItWas() throws {
        let harness = try SchedulerHarness()
        let id = try #require(reply(harness.handler, "schedule.create", Self.create())["schedule_id"]?.string)
        let change: [String: JSONValue] = ["app_key": "app1".json, "schedule_id": id.json, "name": "evening".json, "push": Self.push("all".json)]
        #expect(reply(harness.handler, "schedule.update", change, answers: [Self.answer(1003)]).code == 1003)
        let kept = reply(harness.handler, "schedule.get", ["app_key": "app1".json, "schedule_id": id.json])
        #expect(kept["name"] == "morning".json && kept["push"] == Self.push(.object(["tag": .array(["news".json])])), "\(kept)")
        #expect(reply(harness.handler, "schedule.update", change, answers: [Self.answer(0)]).code == 0)
        #expect(reply(harness.handler, "schedule.get", ["app_key": "app1".json, "schedule_id": id.json])["push"] == Self.push("all".json))
        // A change that leaves the push alone needs no answer.
        #expect(reply(harness.handler, "schedule.update", ["app_key": "app1".json, "schedule_id": id.json, "enabled": .bool(false)]).code == 0)
    }

    @Test func anAppKeepsAtMostTheCapDeletedOnesNotCounted() throws {
        let harness = try SchedulerHarness(settings: SchedulerSettings { $0.maxSchedulesPerApp = 2 })
        let first = try #require(reply(harness.handler, "schedule.create", Self.create("1"))["schedule_id"]?.string)
        #expect(reply(harness.handler, "schedule.create", Self.create("2")).code == 0)
        let over = reply(harness.handler, "schedule.create", Self.create("3"))
        #expect(over.code == 1003 && over["message"]?.string == "the app keeps 2 schedules, at most 2 are allowed: delete one first",
                "\(over)")
        #expect(reply(harness.handler, "schedule.create", Self.create("3", app: "app2")).code == 0, "another app has its own room")
        #expect(reply(harness.handler, "schedule.delete", ["app_key": "app1".json, "schedule_id": first.json]).code == 0)
        #expect(reply(harness.handler, "schedule.create", Self.create("3")).code == 0, "a deleted schedule frees its place")
        #expect(total(harness) == 2 && total(harness, app: "app2") == 1)
    }
}
