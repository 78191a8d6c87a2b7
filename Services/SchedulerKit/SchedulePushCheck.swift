import Credentials
import JSON
import Schema
import Worker

/// Whether push would take a schedule's push when it fires, asked before the schedule is stored:
/// push's own `push.validate` of the `push.send` the firer will send (`ScheduleFirer.send`), as an
/// inquiry, so no transaction waits on push. A schedule push refuses is refused with push's code and
/// message, and one push did not answer in time with 6002: nothing unchecked is stored.
///
/// One difference from push: an audience that is empty only because its tags, `all` or its Live
/// Activity have no device yet is accepted, since devices may come before the schedule fires. A
/// target naming registration IDs or aliases is asked a second time, narrowed to them, and refused
/// 1011 as push refuses it when none of them is the app's.
enum SchedulePushCheck {
    /// The questions for a schedule of `appKey` sending `push` (as stored: without `app_key`). The
    /// cid is made for a schedule ID of the stored form, as the firer makes it; its value plays no
    /// part in the checks.
    static func inquiries(appKey: String, push: JSONValue, fireAt: Double) -> [Inquiry] {
        let send = ScheduleFirer.send(appKey: appKey, scheduleID: RandomKey.hex(bytes: PushScheduleStore.idBytes), push: push, fireAt: fireAt)
        var questions = [Inquiry(.pushValidate, send)]
        if let named = namedDevices(of: send) { questions.append(Inquiry(.pushValidate, named)) }
        return questions
    }

    /// Refuses what push refused. A request that asked nothing passes: the worker always asks, so
    /// only a handler driven without a bus (the unit tests) gets here without answers.
    static func check(_ answers: [Inquiry.Answer]) throws(CommandError) {
        guard let whole = answers.first else { return }
        do throws(CommandError) {
            _ = try whole.decode(PushAccepted.self)
        } catch where error.code == .pushNoTarget {
            if answers.count > 1 { _ = try answers[1].decode(PushAccepted.self) }
        }
    }

    /// `send` to the registration IDs and aliases its target names and no one else; nil when it
    /// names neither.
    private static func namedDevices(of send: PushSend) -> PushSend? {
        guard case .object(let to)? = send.to else { return nil }
        let named = to.dictionary.filter { $0.key == "registration_id" || $0.key == "alias" }
        guard !named.isEmpty else { return nil }
        var narrowed = send
        narrowed.to = .object(JSONObject(named))
        return narrowed
    }
}
