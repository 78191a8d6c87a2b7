import Schema
import SQLite
import Worker

/// The push service's internal commands: the tokens of a page of its audience, and the tokens APNs
/// reported dead, so that no later push goes to them.
extension RegistrationHandler {
    /// Most devices one `device.tokens` or `device.tokens_invalid` may name: a fan-out page.
    static let maxDevicesPerTokenCall = 1000

    func tokens(_ p: DeviceTokensQuery, in db: Database) throws -> DeviceTokensReply {
        let appKey = try Validate.appKey(p.appKey)
        let activity = try p.liveActivityID.map { id throws(CommandError) in try Validate.liveActivityID(id) }
        guard let ids = p.registrationIDs, !ids.isEmpty else {
            // Without devices, the holders of one Live Activity.
            guard let activity else { throw CommandError.empty("registration_ids is missing or empty") }
            return DeviceTokensReply(devices: try devices.holders(db, appKey: appKey, liveActivityID: activity, after: p.after ?? "",
                                                                  limit: Self.maxDevicesPerTokenCall))
        }
        guard ids.count <= Self.maxDevicesPerTokenCall else {
            throw CommandError.invalid("registration_ids names \(ids.count) devices, at most \(Self.maxDevicesPerTokenCall)")
        }
        return DeviceTokensReply(devices: try devices.tokens(db, appKey: appKey, registrationIDs: ids, liveActivityID: activity))
    }

    func disableTokens(_ p: DeviceTokensInvalid, in db: Database) throws -> TokensDisabled {
        let appKey = try Validate.appKey(p.appKey)
        guard let dead = p.tokens, !dead.isEmpty else { throw CommandError.empty("tokens is missing or empty") }
        guard dead.count <= Self.maxDevicesPerTokenCall else {
            throw CommandError.invalid("tokens names \(dead.count) tokens, at most \(Self.maxDevicesPerTokenCall)")
        }
        var disabled = 0
        for token in dead where try devices.disable(db, appKey: appKey, token, now: clock()) {
            disabled += 1
        }
        return TokensDisabled(disabled: disabled)
    }
}
