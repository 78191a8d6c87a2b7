import Bus
import Foundation
import SQLite
import Schema

/// A service's logic: one command in, one reply out, on the service's storage. The worker owns
/// dispatch and the transaction: it reads the command once, refuses another service's, and calls
/// `handle` inside the request's savepoint of the batch's transaction, so a handler opens none of
/// its own; it also feeds the handler the bus events it follows and wakes it for timed work, each
/// inside a transaction too. A handler only appends events to its storage's outbox.
public protocol RequestHandler: AnyObject {
    /// The service whose commands it answers.
    var service: Service { get }

    /// The database and outbox the handler works on; the worker runs every transaction on it.
    var storage: ServiceStorage { get }

    /// Answers `command` (one of `service`'s). Throws `CommandError` for a request that must be
    /// refused; any other error is reported as 6024.
    func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable

    /// Commands whose requests may need other services' answers before they run (default none: the
    /// worker then never asks).
    var inquiring: Set<Command> { get }

    /// What `request` (of a command in `inquiring`) must learn from other services before it runs:
    /// the worker asks over the bus with no transaction open and goes on serving meanwhile, then
    /// calls `handle` with the answers in `request.answers`. Runs on the worker's thread outside any
    /// transaction: it reads the request, never the database. Throwing refuses the request at once.
    func inquiries(_ command: Command, _ request: Request) throws -> [Inquiry]

    /// Topics of other services' events this service applies, e.g. `device.deleted` (default none).
    var subscriptions: [Topic] { get }

    /// Applies one event from the bus; may append events.
    func apply(_ event: BusEvent, in db: Database) throws

    /// When the handler next wants `tick`, or nil for never (the default).
    func nextTick() -> Date?

    /// Timed work, such as firing due schedules; may append events.
    func tick(now: Date, in db: Database) throws

    /// Called once the worker stopped cleanly, before the process exits: what a clean stop leaves
    /// behind for the next start (default nothing).
    func close() throws
}

extension RequestHandler {
    public var inquiring: Set<Command> { [] }
    public func inquiries(_ command: Command, _ request: Request) throws -> [Inquiry] { [] }
    public var subscriptions: [Topic] { [] }
    public func apply(_ event: BusEvent, in db: Database) throws {}
    public func nextTick() -> Date? { nil }
    public func tick(now: Date, in db: Database) throws {}
    public func close() throws {}
}

extension RequestHandler {
    /// What a handler's `switch` ends with. The worker refuses another service's command before the
    /// handler is called, so only a command of this service that the handler does not take gets here.
    public func notHandled(_ command: Command) -> CommandError {
        .invalid("\(command.name) is not handled by \(service.name)")
    }
}
