import Client
import Foundation
import Schema

/// One page of a message's audience, looked up over the bus: the devices (`audience.resolve` from
/// tagging, or a Live Activity's holders from registration), their tokens (`device.tokens`), and
/// for a push with a badge each device's new value (`badge.apply`, once per msg_id and device
/// however often the page is redone after a crash).
struct AudiencePager {
    let gateway: ServiceCaller
    let pageSize: Int

    /// A page ready to commit.
    struct Page {
        /// Registration ID, token, production and badge of each device the push reaches.
        var targets: [(registrationID: String, token: String, production: Bool, badge: Int?)]
        /// Devices of the audience looked at (those without a token are not targets).
        var looked: Int
        var nextCursor: String?
        var total: Int?
        /// Spreads the sends of a big push over its duration from the message's creation.
        var spread: (start: Double, seconds: Double, before: Int)?

        func deliveries(now: Double) -> [(registrationID: String, token: String, production: Bool, badge: Int?, due: Double)] {
            targets.enumerated().map { index, target in
                var due = now
                if let spread, let total, total > 0 {
                    due = max(now, spread.start + spread.seconds * Double(spread.before + index) / Double(total))
                }
                return (target.registrationID, target.token, target.production, target.badge, due)
            }
        }
    }

    /// Whether a message can share one `device.tokens` with others (`direct`): it names its devices
    /// and nothing else, sets no badge, and fits in a page; a fired local notification is one.
    static func isDirect(_ plan: PushPlan, pageSize: Int = 1000) -> Bool {
        guard let ids = plan.target.registrationIDs, ids.count <= pageSize else { return false }
        return plan.target == .only(ids) && plan.content.badge == nil
    }

    /// The whole audience of several direct messages of one app, with one `device.tokens` for all.
    func direct(_ messages: [(message: FanoutStore.OpenMessage, plan: PushPlan)], appKey: String) throws -> [Page] {
        let ids = Array(Set(messages.flatMap { $0.plan.target.registrationIDs ?? [] }))
        guard !ids.isEmpty else { return messages.map { _ in Page(targets: [], looked: 0, nextCursor: nil, total: 0) } }
        let tokens = try gateway.call(.deviceTokens, DeviceTokensQuery(appKey: appKey, registrationIDs: ids), as: DeviceTokensReply.self).devices
        return messages.map { message, plan in
            let wanted = plan.target.registrationIDs ?? []
            let targets = wanted.compactMap { id -> (registrationID: String, token: String, production: Bool, badge: Int?)? in
                guard let device = tokens[id], let token = Self.token(device, plan) else { return nil }
                return (id, token, plan.options.apnsProduction ?? device.apnsProduction, nil)
            }
            return Page(targets: targets, looked: wanted.count, nextCursor: nil, total: wanted.count)
        }
    }

    func next(_ message: FanoutStore.OpenMessage, plan: PushPlan) throws -> Page {
        let (ids, nextCursor, total) = try devices(plan.target, appKey: message.appKey, cursor: message.cursor)
        guard !ids.isEmpty else { return Page(targets: [], looked: 0, nextCursor: nextCursor, total: total) }
        let tokens = try gateway.call(.deviceTokens, DeviceTokensQuery(appKey: message.appKey, registrationIDs: ids,
                                                                        liveActivityID: plan.target.liveActivityID),
                                      as: DeviceTokensReply.self).devices
        var reachable: [(id: String, token: String, production: Bool)] = []
        for id in ids {
            guard let device = tokens[id], let token = Self.token(device, plan) else { continue }
            reachable.append((id, token, plan.options.apnsProduction ?? device.apnsProduction))
        }
        var badges: [String: Int] = [:]
        if let badge = plan.content.badge, !reachable.isEmpty {
            badges = try gateway.call(.badgeApply, BadgeApply(appKey: message.appKey, registrationIDs: reachable.map(\.id),
                                                              badge: badge, msgID: message.msgID), as: BadgeValues.self).values
        }
        let fallback = try plan.content.badge.map { try BadgeChange($0).applied(to: 0) }
        var page = Page(targets: reachable.map { ($0.id, $0.token, $0.production, badges[$0.id] ?? fallback) },
                        looked: ids.count, nextCursor: nextCursor, total: total)
        if plan.options.bigPushDuration > 0 {
            page.spread = (message.createdAt, Double(plan.options.bigPushDuration) * 60, message.expanded)
        }
        return page
    }

    /// The page's registration IDs, the cursor of the next page (nil after the last) and the audience's size.
    private func devices(_ target: PushTarget, appKey: String, cursor: String?) throws -> ([String], String?, Int?) {
        guard let activity = target.liveActivityID else {
            let page = try gateway.call(.audienceResolve, target.query(appKey: appKey, cursor: cursor, limit: pageSize), as: AudiencePage.self)
            return (page.registrationIDs, page.nextCursor, page.total)
        }
        // A Live Activity's holders, a page at a time in registration ID order (over shards, the
        // first `pageSize` of the shards' pages are the page), narrowed by the other kinds.
        let found = try gateway.call(.deviceTokens, DeviceTokensQuery(appKey: appKey, registrationIDs: nil, liveActivityID: activity,
                                                                       after: cursor),
                                     as: DeviceTokensReply.self).devices.keys.sorted()
        let holders = Array(found.prefix(pageSize))
        let next = found.count >= pageSize ? holders.last : nil
        var narrowed = target
        narrowed.liveActivityID = nil
        narrowed.registrationIDs = target.registrationIDs.map { given in holders.filter(given.contains) } ?? holders
        guard narrowed != PushTarget.only(narrowed.registrationIDs), let ids = narrowed.registrationIDs, !ids.isEmpty else {
            return (narrowed.registrationIDs ?? [], next, nil)
        }
        let page = try gateway.call(.audienceResolve, narrowed.query(appKey: appKey, cursor: nil, limit: pageSize), as: AudiencePage.self)
        return (page.registrationIDs, next, nil)
    }

    /// Where a device's notification goes: the token of the push's kind, or `channelRoute` for one
    /// that goes over the device channel (a message or in-app message to any device of the app, and
    /// a notification with `notification_reminder` to a device whose user turned notifications off);
    /// nil when it cannot reach the device.
    private static func token(_ device: DeviceTokens, _ plan: PushPlan) -> String? {
        switch plan.content.kind {
        case .message, .inapp: return channelRoute
        case .alert where plan.options.notificationReminder && device.authorization == "denied": return channelRoute
        case .alert, .background: return device.apnsToken
        case .voip: return device.voipToken
        case .liveActivity: return device.liveActivityToken
        }
    }

    /// The token of a delivery that goes over the device channel rather than through APNs.
    static let channelRoute = ""
}
