import Credentials
import Foundation
import JSON
import Schema
import ZeroMQ

/// One of PushBus's services as a client of the others, through the gateway like any client: signs
/// app-wide queries as the app (it derives any app's key from server.key) and internal commands as
/// itself. Owned by one thread (the push service's worker and its fan-out each have their own).
public final class ServiceCaller {
    private let client: MajordomoClient

    public convenience init(endpoint: String, context: Context, secrets: Secrets, service: String, serverKey: String? = nil,
                            timeoutMilliseconds: Int = 10_000) throws {
        try self.init(endpoint: endpoint, context: context, signer: Signer(service: service, secrets: secrets, forApps: true),
                      serverKey: serverKey, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A caller that signs as `signer` says (the REST API's: apps and the admin, never a device).
    public init(endpoint: String, context: Context, signer: Signer, serverKey: String? = nil, timeoutMilliseconds: Int = 10_000) throws {
        client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: timeoutMilliseconds, serverKey: serverKey)
        client.signer = signer
    }

    /// Calls `command` and returns its reply, or throws the service's refusal as a `CommandError`.
    public func call<P: Codable & Sendable, R: Codable & Sendable>(_ command: Command, _ payload: P, as reply: R.Type) throws -> R {
        let answer: Reply<R>
        do { answer = try client.call(command, payload, as: R.self) } catch ClientError.timeout(let ms) {
            throw CommandError(.timeout, "\(command.service.name) did not answer \(command.name) within \(ms) ms")
        }
        return try Self.body(of: answer, command)
    }

    /// The body of a success, or the refusal as a `CommandError`.
    public static func body<R>(of answer: Reply<R>, _ command: Command) throws(CommandError) -> R {
        guard answer.code.isSuccess, let body = answer.body else {
            throw CommandError(answer.code, answer.message ?? "\(command.name) failed")
        }
        return body
    }

    /// The reply frame `frame` of `command` as `R`: its body, or the service's refusal; nil (no
    /// answer in time) is 6002.
    public static func decode<R: Codable & Sendable>(_ frame: Data?, of command: Command, as reply: R.Type,
                                                     timeoutMilliseconds: Int) throws(CommandError) -> R {
        guard let frame else {
            throw CommandError(.timeout, "\(command.service.name) did not answer \(command.name) within \(timeoutMilliseconds) ms")
        }
        let answer: Reply<R>
        do { answer = try JSONTreeDecoder().decode(Reply<R>.self, from: frame) } catch {
            throw CommandError(.internalError, "the reply of \(command.name) does not decode: \(error)")
        }
        return try body(of: answer, command)
    }
}
