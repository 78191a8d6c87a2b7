import Foundation
import Schema

/// Where a command for a sharded service goes: the shard that owns its device, every shard that has
/// a part of a query over the whole app (each with its own payload), or a page of an audience.
enum ShardRoute: Equatable {
    case one(shard: Int)
    case all(parts: [Data?])
    case paged(AudiencePaging)

    /// Routes `command` with `payload` over `count` shards of its service.
    static func route(_ command: Command, payload: Data, keys: PayloadKeys, count: Int, next: () -> Int) -> ShardRoute {
        if command == .audienceResolve {
            return AudiencePaging.route(payload, count: count)
        }
        if command.isAppScoped {
            return keys.appKey.map { .one(shard: ShardHash.shard(of: "app:" + $0, count: count)) } ?? .one(shard: 0)
        }
        if command.isAppWide {
            return .all(parts: ShardGather.split(command, payload: payload, count: count))
        }
        let key: String?
        switch command {
        case .deviceRegister where keys.registrationID != nil:
            // A re-registration goes where its device lives.
            key = keys.registrationID
        case .deviceRegister, .maStart:
            // No ID yet: the install's key picks the shard, and the shard gives out an ID that hashes to it.
            key = keys.deviceID.flatMap { device in keys.appKey.map { ShardHash.installKey(appKey: $0, deviceID: device) } }
        case .appCreate:
            // Every shard registers devices of every app, so each one learns of the app.
            return .all(parts: ShardGather.split(command, payload: payload, count: count))
        default:
            key = command.service == .analytics ? (keys.euid ?? keys.registrationID) : keys.registrationID
        }
        guard let key else { return .one(shard: next() % count) }
        return .one(shard: ShardHash.shard(of: key, count: count))
    }

}
