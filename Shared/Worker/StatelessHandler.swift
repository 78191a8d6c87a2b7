import Foundation
import Schema

/// A service that keeps nothing (the apns sender): no database, no transaction, no events, no
/// timed work. Each request is handed over as it comes; the handler answers through `reply` at
/// once or later from any thread (the apns sender, once APNs has answered every notification),
/// while the worker goes on taking requests and keeps its own heartbeat. `StatelessWorker` runs it.
public protocol StatelessHandler: AnyObject {
    /// The service whose commands it answers.
    var service: Service { get }

    /// Takes `command` (one of `service`'s, its proof already checked) and answers it exactly once
    /// through `reply`: a `WireCodec` reply frame, success or error.
    func handle(_ command: Command, _ request: Request, reply: @escaping @Sendable (Data) -> Void)

    /// Called once the worker stopped: requests still open are answered or abandoned (default nothing).
    func close()
}

extension StatelessHandler {
    public func close() {}
}
