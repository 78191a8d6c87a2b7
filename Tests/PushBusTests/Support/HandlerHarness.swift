import Credentials
import Foundation
import JSON
import Schema
import Worker

/// A clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double

    init(_ start: Double = 1_700_000_000) { value = start }

    var now: Double { lock.withLock { value } }
    func advance(_ seconds: Double) { lock.withLock { value += seconds } }
}

/// Calls a handler through the worker's own adapter (`ServiceWorker.reply`), in a transaction of its own as
/// a batch of one, without sockets, and returns the reply JSON. `principal` is who signed the
/// request (nil: unsigned); `answers`, what the worker would have learnt for its inquiries (none: a
/// handler test without a bus).
func reply(_ handler: any RequestHandler, _ command: String, _ payload: [String: JSONValue],
           principal: Principal? = nil, answers: [Inquiry.Answer] = []) -> JSONValue {
    var request = Request(command: command, payload: WireCodec.encode(JSONValue.object(payload)), principal: principal)
    request.answers = answers
    let frame: Data
    do {
        frame = try handler.storage.store.write { _ in ServiceWorker.reply(to: request, handler: handler) }
    } catch {
        frame = WireCodec.errorReply(CommandError(.internalError, "the transaction failed: \(error)"))
    }
    return (try? JSONDecoder().decode(JSONValue.self, from: frame)) ?? .null
}

extension Secrets {
    /// Fixed secrets for handler tests, which run without a data directory.
    static let forTests = Secrets(admin: String(repeating: "ad", count: 32), serverKey: String(repeating: "5e", count: 32))
}

extension String {
    /// `self` as a JSON string value, for building payloads.
    var json: JSONValue { .string(self) }
}
