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

    /// `slots`: requests out at once (one per handler thread is enough: each waits on its own).
    public init(endpoint: String, secrets: Secrets, serverKey: String?, timeoutMilliseconds: Int, slots: Int) throws {
        self.timeoutMilliseconds = timeoutMilliseconds
        loop = try BusLoop(name: "api-bus", endpoint: endpoint, context: try Context(), serverKey: serverKey, slots: slots,
                           timeoutMilliseconds: timeoutMilliseconds) {
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

    /// Ends the loop; calls still waiting hear 6002.
    public func stop() { loop.stop() }
}
