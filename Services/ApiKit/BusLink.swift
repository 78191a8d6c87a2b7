import Client
import Credentials
import Foundation
import JSON
import Schema
import ZeroMQ

/// The API's way onto the bus: MDP clients of the gateway that sign each command as the app that
/// called (its master secret derived from server.key), or as the admin for `app.create`, and never
/// as a device. A client serves one request at a time on one of the server's threads; clients wait
/// in a pool between requests, handed over under a lock (the full barrier ZeroMQ asks for when a
/// socket moves to another thread), so there are never more than the server has threads.
public final class BusLink: @unchecked Sendable {
    private let endpoint: String
    private let secrets: Secrets
    private let serverKey: String?
    private let timeoutMilliseconds: Int
    private let context: Context
    private let lock = NSLock()
    private var idle: [MajordomoClient] = []

    public init(endpoint: String, secrets: Secrets, serverKey: String?, timeoutMilliseconds: Int) throws {
        self.endpoint = endpoint
        self.secrets = secrets
        self.serverKey = serverKey
        self.timeoutMilliseconds = timeoutMilliseconds
        context = try Context()
    }

    /// Calls `command` with `payload` and returns its reply, or throws the service's refusal as HTTP.
    public func call(_ command: Command, _ payload: JSONValue) throws(Refusal) -> JSONValue {
        let client: MajordomoClient
        do { client = try borrow() } catch { throw Refusal(500, Int(ResultCode.internalError.rawValue), "cannot reach the gateway: \(error)") }
        defer { giveBack(client) }
        let data: Data
        do { data = try client.call(command.name, payload: WireCodec.encode(payload)) } catch ClientError.timeout(let ms) {
            throw Refusal(CommandError(.timeout, "\(command.service.name) did not answer \(command.name) within \(ms) ms"))
        } catch {
            throw Refusal(500, Int(ResultCode.internalError.rawValue), "\(command.name) failed: \(error)")
        }
        guard let reply = try? JSONTreeDecoder().decode(JSONValue.self, from: data), let code = reply["code"]?.number else {
            throw Refusal(500, Int(ResultCode.internalError.rawValue), "\(command.name): the reply is not JSON with a code")
        }
        guard code == 0 else {
            throw Refusal(CommandError(ResultCode(Int(code)), reply["message"]?.string ?? "\(command.name) failed"))
        }
        return reply
    }

    private func borrow() throws -> MajordomoClient {
        if let client = lock.withLock({ idle.popLast() }) { return client }
        let client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: timeoutMilliseconds, serverKey: serverKey)
        let signer = Signer(secrets: secrets)
        signer.derivesDeviceKeys = false
        client.signer = signer
        return client
    }

    private func giveBack(_ client: MajordomoClient) { lock.withLock { idle.append(client) } }
}
