import Foundation
import Runtime
import Threads
import ZeroMQ

/// Work a service does beside its worker, on a thread of its own for the life of the process: the
/// push fan-out, the schedule firer, the channel's sweep, analytics' report verifier. Every one has
/// the same shape: `prepare` (on its thread: its own store connection, its own sockets), then
/// passes, each doing what is due and saying how soon it wants the next one, the thread polling the
/// loop's sockets and its stop pipe in between. A pass that throws left nothing half done (what it
/// committed, if anything, is whole); it is logged and the loop tries again after a pause that
/// doubles from one second to thirty. A `prepare` that throws stops the process
/// (exit 1), for whatever supervises it to start it again, rather than leave the worker serving
/// without its side work. The process's stop reaches every loop, which then `finish`es.
public protocol SideLoop: AnyObject {
    /// The thread's name (the kernel keeps its first 15 bytes).
    var name: String { get }
    /// Opens what the loop owns: called once, on the loop's thread, before the first pass.
    func prepare(context: Context) throws
    /// Sockets whose activity wakes the loop before its next pass is due (default none).
    var sockets: [Socket] { get }
    /// Descriptors (eventfds) whose activity wakes the loop too (default none).
    var descriptors: [Int32] { get }
    /// Does what is due at `now` (Unix seconds); returns the seconds until the next pass at the
    /// latest (0: at once).
    func pass(now: Double) throws -> Double
    /// Called once on the loop's thread after its last pass: close sockets, give work back.
    func finish()
}

extension SideLoop {
    public var sockets: [Socket] { [] }
    public var descriptors: [Int32] { [] }
    public func prepare(context: Context) throws {}
    public func finish() {}
}

/// The side loops of one process: started once the worker is built, stopped (and waited for) once it
/// has stopped, before the handler closes its database.
public final class SideLoops {
    private var added: [SideLoop] = []
    private var running: [(stopper: Stopper, done: DispatchSemaphore)] = []

    public init() {}

    /// Adds `loop`, to be started with the others. Called while the service is built, on its main thread.
    public func add(_ loop: SideLoop) { added.append(loop) }

    /// Starts every loop added on a thread of its own, which from then on alone uses it.
    func start(context: Context, logger: Logger) {
        for loop in added {
            let stopper = Stopper(context: context)
            let done = DispatchSemaphore(value: 0)
            let handed = Handed(loop)
            NamedThread.start(loop.name) {
                defer { done.signal() }
                Self.run(handed.loop, stopper: stopper, context: context, logger: logger)
            }
            running.append((stopper, done))
        }
        added = []
    }

    /// Asks every loop to stop and waits until each has.
    func stop() {
        for loop in running { loop.stopper.request() }
        for loop in running { loop.done.wait() }
    }

    private static func run(_ loop: SideLoop, stopper: Stopper, context: Context, logger: Logger) {
        let stop: Socket
        do {
            stop = try stopper.makeReceiver()
            try loop.prepare(context: context)
        } catch {
            logger.error("the \(loop.name) loop could not start; the process stops so that it restarts", ["error": error])
            exit(1)
        }
        var failures = 0
        while !stopper.isRequested {
            var wait: Double
            do {
                wait = try loop.pass(now: Date().timeIntervalSince1970)
                failures = 0
            } catch {
                failures += 1
                wait = min(30, Double(1 << min(failures - 1, 5)))
                logger.warning("a \(loop.name) pass failed; trying again", ["error": error, "retry_s": wait])
            }
            guard wait > 0 else { continue }
            var poller = Poller(loop.sockets + [stop], fds: loop.descriptors)
            _ = try? poller.poll(timeout: Int((wait * 1000).rounded(.up)))
        }
        loop.finish()
        stop.close()
    }

    /// A loop handed to its thread, which alone uses it from then on: the one transfer of a
    /// non-Sendable value across threads in the worker, at the thread's start.
    private struct Handed: @unchecked Sendable {
        let loop: SideLoop
        init(_ loop: SideLoop) { self.loop = loop }
    }
}
