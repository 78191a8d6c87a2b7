import Foundation
import Threads

/// A loop a service runs beside its worker for the life of the process (the push fan-out, the
/// schedule firer). Nothing of it survives the process, so a failure stops the process (exit 1)
/// and whatever supervises it starts it again, rather than leave the worker serving without it.
public enum BackgroundThread {
    public static func start(_ name: String, logger: Logger, _ body: @escaping @Sendable () throws -> Void) {
        NamedThread.start(name) {
            do { try body() } catch {
                logger.error("the \(name) thread failed; the process stops so that it restarts", ["error": error])
                exit(1)
            }
        }
    }
}
