import Schema
import Testing
@testable import AnalyticsKit

/// The questions a batch of unverified reports asks push, and the verdicts push's answers give.
@Suite("analytics target check")
struct TargetCheckTests {
    func pending(_ id: Int64, _ device: String, _ kind: StatsKind = .received, msg: String = "7", app: String = "app1") -> ReportStore.Pending {
        ReportStore.Pending(id: id, appKey: app, msgID: msg, registrationID: device, kind: kind, time: 0)
    }

    @Test func asksOnceForEachDeviceOfEachMessageAThousandAtATime() {
        var reports = [pending(1, "a"), pending(2, "a", .opened), pending(3, "b", msg: "8"), pending(4, "a", app: "app2")]
        reports += (0..<2500).map { pending(10 + Int64($0), "d\($0)", msg: "9") }
        let check = TargetCheck(reports)
        #expect(check.questions.map { "\($0.appKey ?? "")/\($0.msgID ?? ""):\($0.registrationIDs?.count ?? 0)" }
                == ["app1/7:1", "app1/8:1", "app2/7:1", "app1/9:1000", "app1/9:1000", "app1/9:500"])
        #expect(check.questions[0].registrationIDs == ["a"], "a device that reported two kinds is asked about once")
        #expect(Set(check.questions.suffix(3).flatMap { $0.registrationIDs ?? [] }).count == 2500)
    }

    @Test func anyStatusButNotTargetIsATarget() {
        let reports = ["sent", "failed", "pending", "withdrawn", "not_target", "missing"].enumerated().map { pending(Int64($0.offset), $0.element) }
        var check = TargetCheck(reports + [pending(9, "sent", .opened)])
        #expect(check.ask { _ in
            PushDeviceStatusReply(devices: ["sent": .init(status: "sent"), "failed": .init(status: "failed", reason: "BadDeviceToken"),
                                            "pending": .init(status: "pending"), "withdrawn": .init(status: "withdrawn"),
                                            "not_target": .init(status: "not_target")])
        } == nil)
        #expect(Dictionary(uniqueKeysWithValues: check.verdicts.map { ($0.report.id, $0.isTarget) })
                == [0: true, 1: true, 2: true, 3: true, 4: false, 5: false, 9: true])
    }

    @Test func aMessageThatIsNotTheAppsRefusesItsReportsAndPushsSilenceLeavesTheRestWaiting() {
        var check = TargetCheck([pending(1, "a", msg: "x"), pending(2, "a", msg: "y"), pending(3, "a", msg: "z")])
        var asked: [String] = []
        let silence = check.ask { question in
            asked.append(question.msgID ?? "")
            if question.msgID == "x" { throw CommandError.badField("msg_id x is not a message of this app") }
            throw CommandError(.timeout, "push did not answer")
        }
        #expect((silence as? CommandError)?.code == .timeout)
        #expect(asked == ["x", "y"], "no question is asked after push fell silent")
        #expect(check.verdicts == [TargetCheck.Verdict(report: pending(1, "a", msg: "x"), isTarget: false)])
    }

    @Test func aRefusalForNowIsNotARefusalForGood() {
        for code in [ResultCode.tooFrequent, .internalError, .appKeyInvalid] {
            var check = TargetCheck([pending(1, "a")])
            #expect((check.ask { _ in throw CommandError(code, "not now") } as? CommandError)?.code == code)
            #expect(check.verdicts.isEmpty, "\(code)")
        }
    }
}
