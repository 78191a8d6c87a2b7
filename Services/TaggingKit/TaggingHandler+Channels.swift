import Foundation
import Runtime
import Schema
import SQLite
import WireTime

/// Channel subscriptions of one device (TikPush): optional expiry, background-push flag, and
/// `channel.sync` to make the server match the device's offline list.
extension TaggingHandler {
    static let maxSyncedChannels = 1000

    func subscribe(_ p: ChannelSubscribe, in db: Database) throws -> Empty {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let channel = try Validate.channel(p.channel)
        let now = clock()
        let expiry = try p.expiresAt.map { text throws(CommandError) in try Self.expiry(text) }
        if let expiry, expiry <= now { throw CommandError.invalid("expires_at is in the past") }
        let device = try entry(db, keys)
        try channels.subscribe(db, device: device.id, appKey: keys.app, channel: channel, expiresAt: expiry,
                               backgroundPush: p.backgroundPush ?? false)
        try refreshExpiry(db)
        return Empty()
    }

    func unsubscribe(_ p: ChannelRef, in db: Database) throws -> Empty {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let channel = try Validate.channel(p.channel)
        if let device = try knownDevice(db, app: keys.app, id: keys.id) {
            try channels.unsubscribe(db, device: device.id, appKey: keys.app, channel: channel)
            try refreshExpiry(db)
        }
        return Empty()
    }

    /// Subscribed means an unexpired subscription; an expired one is purged on the spot.
    func channelStatus(_ p: ChannelRef, in db: Database) throws -> ChannelStatus {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let channel = try Validate.channel(p.channel)
        guard let device = try knownDevice(db, app: keys.app, id: keys.id) else { return ChannelStatus(subscribed: false) }
        return ChannelStatus(subscribed: try channels.isSubscribed(db, device: device.id, appKey: keys.app, channel: channel, now: clock()))
    }

    func resetChannels(_ p: DeviceRef, in db: Database) throws -> Empty {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        if let device = try knownDevice(db, app: keys.app, id: keys.id) {
            try channels.removeAll(db, device: device.id)
            try refreshExpiry(db)
        }
        return Empty()
    }

    /// Replaces the server's subscriptions with the device's list; entries that expired while the
    /// device was offline are dropped. Answers what the server now holds.
    func syncChannels(_ p: ChannelSync, in db: Database) throws -> ChannelSubscriptions {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        guard let list = p.subscriptions else { throw CommandError.empty("subscriptions is missing (send [] to clear)") }
        guard list.count <= Self.maxSyncedChannels else {
            throw CommandError.invalid("\(list.count) subscriptions; at most \(Self.maxSyncedChannels)")
        }
        let now = clock()
        var wanted: [String: (expiry: Double?, background: Bool)] = [:]
        for entry in list {
            let channel = try Validate.channel(entry.channel)
            let expiry = try entry.expiresAt.map { text throws(CommandError) in try Self.expiry(text) }
            if let expiry, expiry <= now { continue }
            wanted[channel] = (expiry, entry.backgroundPush ?? false)
        }
        let device = try entry(db, keys)
        try channels.removeAll(db, device: device.id)
        for (channel, setting) in wanted {
            try channels.subscribe(db, device: device.id, appKey: keys.app, channel: channel,
                                   expiresAt: setting.expiry, backgroundPush: setting.background)
        }
        try refreshExpiry(db)
        return ChannelSubscriptions(subscriptions: try channels.list(db, device: device.id, now: now))
    }

    private func refreshExpiry(_ db: Database) throws {
        nextExpiry = try channels.nextExpiry(db)
    }

    private static func expiry(_ text: String) throws(CommandError) -> Double {
        guard let date = RFC3339.date(from: text) else { throw .invalid("expires_at must be an RFC 3339 time") }
        return date.timeIntervalSince1970
    }
}
