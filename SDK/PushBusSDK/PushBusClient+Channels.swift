import Foundation

/// TikPush's channel subscriptions (seed 004): offline first. The device's own list (in its state,
/// across launches) answers `isRegisteredForChannel` at once; each change goes to the server in
/// order, and `syncChannels` sends the whole list (`channel.sync`), so a change made offline or lost
/// is settled the next time.
extension PushBusClient {
    /// Subscribes to `channel`, until `expiresAt` when given; `backgroundPush` asks for silent pushes too.
    public func registerForChannel(_ channel: String, expiresAt: Date? = nil, backgroundPush: Bool = false,
                                   completion: ((Int) -> Void)? = nil) {
        guard !channel.isEmpty, channel.utf8.count <= 256 else {
            return refuse(PushBusCode.invalidRequest) { _ in completion?(PushBusCode.invalidRequest) }
        }
        let subscription = DeviceState.Subscription(channel: channel, expiresAt: expiresAt, backgroundPush: backgroundPush)
        updateSubscriptions { list in
            list.removeAll { $0.channel == channel }
            list.append(subscription)
        }
        perform("channel.subscribe", subscription.json) { reply in completion?(Self.code(reply)) }
    }

    public func unregisterForChannel(_ channel: String, completion: ((Int) -> Void)? = nil) {
        updateSubscriptions { list in list.removeAll { $0.channel == channel } }
        perform("channel.unsubscribe", ["channel": channel]) { reply in completion?(Self.code(reply)) }
    }

    /// From the device's own list: subscribed and not expired.
    public func isRegisteredForChannel(_ channel: String) -> Bool {
        let now = Date()
        return subscriptions.contains { $0.channel == channel && ($0.expiresAt.map { $0 > now } ?? true) }
    }

    public func resetAllSubscriptions(completion: ((Int) -> Void)? = nil) {
        updateSubscriptions { $0 = [] }
        perform("channel.reset", [:]) { reply in completion?(Self.code(reply)) }
    }

    /// Sends the device's whole list; the server's answer is what it now holds.
    public func syncChannels(completion: ((Int, [String]) -> Void)? = nil) {
        let list = subscriptions.map(\.json)
        perform("channel.sync", ["subscriptions": list]) { reply in
            let held = (reply["subscriptions"] as? [[String: Any]])?.compactMap { $0["channel"] as? String } ?? []
            completion?(Self.code(reply), held)
        }
    }

    /// Asks the server whether the device is subscribed to `channel`.
    public func channelStatus(_ channel: String, completion: @escaping (Int, Bool) -> Void) {
        perform("channel.status", ["channel": channel]) { reply in completion(Self.code(reply), reply["subscribed"] as? Bool ?? false) }
    }
}

extension DeviceState {
    /// One channel subscription as the device keeps it.
    struct Subscription: Codable, Equatable {
        var channel: String
        var expiresAt: Date?
        var backgroundPush: Bool

        var json: [String: Any] {
            var fields: [String: Any] = ["channel": channel, "background_push": backgroundPush]
            fields["expires_at"] = expiresAt.map { ISO8601DateFormatter().string(from: $0) }
            return fields
        }
    }
}
