import Client
import Credentials
import Foundation
import JSON
import Majordomo
import Schema
import ZeroMQ

/// The API's way onto the bus: a `BusLoop` of the gateway whose requests are signed as the app that
/// called (its master secret derived from server.key), or as the admin for `app.create`, and never
/// as a device. Handler threads call and wait; the loop's thread owns the sockets.
public final class BusLink: Sendable {
    private let loop: BusLoop
    private let timeoutMilliseconds: Int

    /// `slots`: requests out at once (a handler thread waits on one; the edge's relays share them);
    /// `edgeQueue`: device requests that may wait for a slot before more are answered 503.
    public init(endpoint: String, secrets: Secrets, serverKey: String?, timeoutMilliseconds: Int, slots: Int, edgeQueue: Int = 4096) throws {
        self.timeoutMilliseconds = timeoutMilliseconds
        loop = try BusLoop(name: "api-bus", endpoint: endpoint, context: try Context(), serverKey: serverKey, slots: slots,
                           lanes: [BusPool.Lane(), BusPool.Lane(limit: edgeQueue)], timeoutMilliseconds: timeoutMilliseconds) {
            let signer = Signer(secrets: secrets)
            signer.derivesDeviceKeys = false
            return signer
        }
    }

    /// Calls `command` with `payload` and returns its reply, or throws the service's refusal as HTTP.
    public func call(_ command: Command, _ payload: JSONValue) throws(Refusal) -> JSONValue {
        let frame = loop.call(MDP.deviceService, [Data(command.name.utf8), WireCodec.encode(payload)])
        do { return try ServiceCaller.decode(frame, of: command, as: JSONValue.self, timeoutMilliseconds: timeoutMilliseconds) } catch {
            throw Refusal(error)
        }
    }

    /// Sends a device's request `[command, payload, proof?]` exactly as it came (never signed: the
    /// device proves itself) and hands the reply frame, or nil when none came, to `completion` on
    /// the loop's thread. Never blocks; past the edge's queue the completion hears nil at once.
    public func relay(_ body: [Data], completion: @escaping @Sendable (Data?) -> Void) {
        loop.submit(BusLoop.Request(service: MDP.deviceService, body: body, lane: Self.edgeLane, relayed: true, completion: completion))
    }

    /// The lanes: the REST API's calls (each made by a handler thread that waits), then the device
    /// edge's relays, which wait in the loop, at most `edgeQueue` of them.
    static let restLane = 0
    static let edgeLane = 1

    /// Ends the loop; calls still waiting hear 6002.
    public func stop() { loop.stop() }
}
