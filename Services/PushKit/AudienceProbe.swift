import Client
import Schema

/// Whether a push has anyone to go to, asked before it is accepted so that an empty audience is
/// refused (1011) rather than accepted and sent to nobody: one device of the audience from tagging,
/// and for a Live Activity, a device holding the activity's token from registration.
struct AudienceProbe {
    let gateway: ServiceCaller

    func checkHasTarget(_ target: PushTarget, appKey: String) throws {
        if let activity = target.liveActivityID {
            let holders = try gateway.call(.deviceTokens, DeviceTokensQuery(appKey: appKey, registrationIDs: nil, liveActivityID: activity),
                                           as: DeviceTokensReply.self)
            guard !holders.devices.isEmpty else {
                throw CommandError(.pushNoTarget, "no device holds live_activity_id \(activity)")
            }
            return
        }
        let page = try gateway.call(.audienceResolve, target.query(appKey: appKey, cursor: nil, limit: 1), as: AudiencePage.self)
        guard !page.registrationIDs.isEmpty else { throw CommandError(.pushNoTarget, "the audience has no device") }
    }
}
