import Foundation
import Schema
import SQLite

/// How a request reaches a handler, the one way there is: the worker's batches and the handler
/// tests both come through here. The command is read once and another service's refused; the
/// handler runs in a savepoint of the caller's transaction, so a refusal undoes only its own
/// request; its answer, or the code of its refusal, is encoded as the reply.
public struct Dispatcher {
    public let handler: any RequestHandler
    private let logger: Logger?

    public init(_ handler: any RequestHandler, logger: Logger? = nil) {
        self.handler = handler
        self.logger = logger
    }

    /// The reply frame to `request`. Call inside a write transaction of the handler's store.
    public func reply(to request: Request) -> Data {
        guard let command = Command(rawValue: request.command), command.service == handler.service else {
            return WireCodec.errorReply(.invalid("unknown command \(request.command.prefix(64)) for \(handler.service.name)"),
                                        seq: request.seq)
        }
        do {
            let value = try handler.storage.store.write { db in try handler.handle(command, request, in: db) }
            return WireCodec.successReply(value, seq: request.seq)
        } catch let error as CommandError {
            logger?.debug("request refused", ["command": command.name, "code": error.code, "reason": error.message])
            return WireCodec.errorReply(error, seq: request.seq)
        } catch let damage as SQLiteError where damage.isDamage {
            logger?.error("database damaged", ["file": damage.path ?? handler.storage.store.path, "during": command.name,
                                               "error": damage.message])
            return WireCodec.errorReply(.damagedDatabase(damage), seq: request.seq)
        } catch {
            logger?.error("request failed", ["command": command.name, "error": error])
            return WireCodec.errorReply(CommandError(.internalError, "internal error"), seq: request.seq)
        }
    }
}
