import Client
import Credentials
import Foundation
import JSON
import Schema
import ZeroMQ

/// The API's way onto the bus: `ServiceCaller`s of the gateway that sign each command as the app that
/// called (its master secret derived from server.key), or as the admin for `app.create`, and never
/// as a device. A caller serves one request at a time on one connection's thread; callers wait in
/// a pool between requests, handed over under a lock (the full barrier ZeroMQ asks for when a
/// socket moves to another thread), so there are never more than requests served at once.
public final class BusLink: @unchecked Sendable {
    private let endpoint: String
    private let secrets: Secrets
    private let serverKey: String?
    private let timeoutMilliseconds: Int
    private let context: Context
    private let lock = NSLock()
    private var idle: [ServiceCaller] = []

    public init(endpoint: String, secrets: Secrets, serverKey: String?, timeoutMilliseconds: Int) throws {
        self.endpoint = endpoint
        self.secrets = secrets
        self.serverKey = serverKey
        self.timeoutMilliseconds = timeoutMilliseconds
        context = try Context()
    }

    /// Calls `command` with `payload` and returns its reply, or throws the service's refusal as HTTP.
    public func call(_ command: Command, _ payload: JSONValue) throws(Refusal) -> JSONValue {
        let caller: ServiceCaller
        do { caller = try borrow() } catch { throw Refusal(500, Int(ResultCode.internalError.rawValue), "cannot reach the gateway: \(error)") }
        defer { giveBack(caller) }
        do { return try caller.call(command, payload, as: JSONValue.self) } catch let refusal as CommandError {
            throw Refusal(refusal)
        } catch {
            throw Refusal(500, Int(ResultCode.internalError.rawValue), "\(command.name) failed: \(error)")
        }
    }

    private func borrow() throws -> ServiceCaller {
        if let caller = lock.withLock({ idle.popLast() }) { return caller }
        let signer = Signer(secrets: secrets)
        signer.derivesDeviceKeys = false
        return try ServiceCaller(endpoint: endpoint, context: context, signer: signer, serverKey: serverKey,
                                 timeoutMilliseconds: timeoutMilliseconds)
    }

    private func giveBack(_ caller: ServiceCaller) { lock.withLock { idle.append(caller) } }
}
