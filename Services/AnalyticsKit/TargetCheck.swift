import Schema

/// One batch of unverified message reports and what push says of them: the `push.device_status`
/// questions that settle them (one message each, at most `devicesPerQuestion` devices, each device
/// once however many kinds it reported), and, as answers come, each report's verdict. A pure value:
/// `ReportVerifier` asks the questions on the bus, tests answer them directly.
struct TargetCheck {
    /// A report and whether its device was a target of its message.
    struct Verdict: Equatable {
        var report: ReportStore.Pending
        var isTarget: Bool
    }

    /// push's limit on one `push.device_status`.
    static let devicesPerQuestion = 1000

    let reports: [ReportStore.Pending]
    /// In the order of each message's first report.
    let questions: [PushDeviceStatusQuery]
    /// What push said of each device it answered for.
    private var isTarget: [Device: Bool] = [:]

    private struct Device: Hashable {
        var appKey: String
        var msgID: String
        var registrationID: String
    }

    private struct Message: Hashable {
        var appKey: String
        var msgID: String
    }

    init(_ reports: [ReportStore.Pending]) {
        self.reports = reports
        var order: [Message] = []
        var devices: [Message: [String]] = [:]
        var seen: Set<Device> = []
        for report in reports where seen.insert(Self.device(report)).inserted {
            let message = Message(appKey: report.appKey, msgID: report.msgID)
            if devices[message] == nil { order.append(message) }
            devices[message, default: []].append(report.registrationID)
        }
        questions = order.flatMap { message in
            let ids = devices[message] ?? []
            return stride(from: 0, to: ids.count, by: Self.devicesPerQuestion).map { start in
                PushDeviceStatusQuery(appKey: message.appKey, msgID: message.msgID,
                                      registrationIDs: Array(ids[start..<min(start + Self.devicesPerQuestion, ids.count)]))
            }
        }
    }

    /// Asks `push` the questions in turn, taking its answers and its refusals for good (1003: the
    /// msg_id is not a message of the app), until it does not answer (a timeout, a refusal for now,
    /// any other error), which is returned: the questions left wait for a later batch.
    mutating func ask(_ push: (PushDeviceStatusQuery) throws -> PushDeviceStatusReply) -> (any Error)? {
        for question in questions {
            do {
                take(try push(question), for: question)
            } catch let error as CommandError where error.code == .pushInvalid {
                refuse(question)
            } catch {
                return error
            }
        }
        return nil
    }

    /// push's answer to `question`: a device is a target when push names any status but `not_target`
    /// for it (sent, failed, pending, withdrawn).
    private mutating func take(_ reply: PushDeviceStatusReply, for question: PushDeviceStatusQuery) {
        for (device, id) in Self.devices(question) {
            isTarget[device] = reply.devices[id].map { $0.status != "not_target" } ?? false
        }
    }

    /// push refused `question` for good (the msg_id is not a message of the app): no device was a target.
    private mutating func refuse(_ question: PushDeviceStatusQuery) {
        for (device, _) in Self.devices(question) { isTarget[device] = false }
    }

    /// The verdicts of the reports whose question push has answered or refused; the others wait.
    var verdicts: [Verdict] {
        reports.compactMap { report in isTarget[Self.device(report)].map { Verdict(report: report, isTarget: $0) } }
    }

    private static func device(_ report: ReportStore.Pending) -> Device {
        Device(appKey: report.appKey, msgID: report.msgID, registrationID: report.registrationID)
    }

    private static func devices(_ question: PushDeviceStatusQuery) -> [(Device, String)] {
        (question.registrationIDs ?? []).map { id in
            (Device(appKey: question.appKey ?? "", msgID: question.msgID ?? "", registrationID: id), id)
        }
    }
}
