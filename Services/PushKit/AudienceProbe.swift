import Schema
import Worker

/// Whether a push has anyone to go to, asked before it is accepted so that an empty audience is
/// refused (1011) rather than accepted and sent to nobody: one device of the audience from tagging,
/// and for a Live Activity, a device holding the activity's token from registration. Asked as an
/// inquiry, so no transaction waits on it.
enum AudienceProbe {
    static func inquiry(for target: PushTarget, appKey: String) -> Inquiry {
        if let activity = target.liveActivityID {
            return Inquiry(.deviceTokens, DeviceTokensQuery(appKey: appKey, registrationIDs: nil, liveActivityID: activity))
        }
        return Inquiry(.audienceResolve, target.query(appKey: appKey, cursor: nil, limit: 1))
    }

    static func checkHasTarget(_ answer: Inquiry.Answer, _ target: PushTarget) throws {
        if let activity = target.liveActivityID {
            guard !(try answer.decode(DeviceTokensReply.self)).devices.isEmpty else {
                throw CommandError(.pushNoTarget, "no device holds live_activity_id \(activity)")
            }
            return
        }
        guard !(try answer.decode(AudiencePage.self)).registrationIDs.isEmpty else {
            throw CommandError(.pushNoTarget, "the audience has no device")
        }
    }
}
