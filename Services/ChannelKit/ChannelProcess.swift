import Credentials
import Foundation
import Runtime
import Schema
import WebSocket
import Worker
import ZeroMQ

/// What one channel process runs beside its shard's worker: the WebSocket server devices connect
/// to, the connections it holds (`LiveHost`), and the uplink to the bus. It is the shard's outlet:
/// a message for a connection of this process goes straight to it, one for a connection another
/// channel process holds goes there as `live.push`, addressed to that process's shard by name.
public final class ChannelProcess: LiveOutlet, @unchecked Sendable {
    public let host: LiveHost
    public let uplink: Uplink
    public let server: WebSocketServer
    private let shard: ShardLayout
    private let logger: Logger

    public init(settings: ChannelSettings, options: WorkerOptions, secrets: Secrets, logger: Logger) throws {
        shard = options.shard
        self.logger = logger
        uplink = try Uplink(endpoint: options.endpoint, serverKey: options.curveServerKey, secrets: secrets,
                        service: options.shard.serviceName(Service.channel.name), slots: settings.uplinkSlots, logger: logger)
        host = LiveHost(host: options.shard.index, secrets: secrets, uplink: uplink, helloTimeout: Double(settings.helloTimeoutSeconds),
                        logger: logger)
        let (address, port) = try settings.address()
        var limits = settings.limits
        // Past the open-file limit the process can neither accept nor reach the bus: keep room.
        let files = OpenFileLimit.current - Self.reservedFiles
        if limits.maxConnections > files {
            logger.warning("--max-connections is above what the open-file limit allows; lowered",
                           ["max_connections": limits.maxConnections, "allowed": files])
            limits.maxConnections = max(1, files)
        }
        server = WebSocketServer(host: address, port: Int(port), path: "/v1/channel", limits: limits, tls: try settings.tls(), delegate: host)
        host.server = server
    }

    /// Descriptors kept for the database, the bus sockets and the process's own files.
    static let reservedFiles = 256

    public func push(_ push: LivePush, toHost target: Int) {
        if target == shard.index {
            host.apply(push)
        } else {
            for part in push.parts(maxBytes: Mailbox.answerBytes) {
                uplink.enqueue(.livePush, part, to: ShardHash.serviceName(Service.channel.name, shard: target, of: shard.count), lane: .urgent)
            }
        }
    }

    /// Starts the uplink, tells every shard that connections of this process's earlier starts are
    /// gone, and opens the WebSocket port. Throws when the port cannot be bound.
    /// Tells every shard that this process's earlier connections are gone, until they all have: a
    /// process restarted before the gateway noticed its old worker died may see this handed to the
    /// dead worker and lost, and the devices it held would stay online.
    private func announceStart() {
        uplink.enqueue(.liveReset, LiveReset(host: host.host, boot: host.boot), lane: .urgent) { [weak self] reply in
            guard let self else { return }
            if reply.flatMap({ try? WireCodec.decode(Reply<Empty>.self, from: $0) })?.code.isSuccess == true { return }
            self.logger.warning("the shards did not take this process's restart; telling them again in a second")
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in self?.announceStart() }
        }
    }

    /// Tells the shards of this start, and opens the WebSocket port. Throws when the port cannot be bound.
    public func start() throws {
        announceStart()
        try server.start()
        logger.info("serving devices", ["listen": "\(server.boundPort)", "host": host.host, "boot": host.boot])
    }
}

/// The channel's timer beside its worker: each second, connections that have not said hello in
/// time are closed (`LiveHost.sweep`).
public final class ChannelSweep: SideLoop {
    public let name = "channel-sweep"
    private let host: LiveHost

    public init(host: LiveHost) { self.host = host }

    public func pass(now: Double) throws -> Double {
        host.sweep()
        return 1
    }
}
