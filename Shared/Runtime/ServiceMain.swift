import Foundation
import Schema
import ZeroMQ

/// What every service's `main.swift` does: parse flags, build the handler, trap signals, serve, exit.
public enum ServiceMain {
    /// Never returns. Exit codes: 0 stopped cleanly, 1 failed to start or crashed, 64 usage error.
    public static func run(_ service: Service, summary: String, flags extra: [Flag] = [],
                           makeHandler: (Flags, WorkerOptions, Logger) throws -> any RequestHandler) -> Never {
        let flags = Flags.parseOrExit(program: service.name, summary: summary, flags: WorkerOptions.flags + extra)
        let options: WorkerOptions
        do { options = try WorkerOptions(flags) } catch { Flags.exitUsage(service.name, error) }
        let logger = Logger(label: service.name, level: options.logLevel)
        do {
            try DataDirectory.prepare(options.dataDirectory, logger: logger)
            try serve(service, flags, options, logger, makeHandler)
            logger.info("stopped")
            exit(0)
        } catch {
            logger.error("service failed", ["error": error])
            exit(1)
        }
    }

    /// Returns once stopped, after the worker has said goodbye; the handler (and with it the
    /// database) is released on the way out, before the process exits.
    private static func serve(_ service: Service, _ flags: Flags, _ options: WorkerOptions, _ logger: Logger,
                              _ makeHandler: (Flags, WorkerOptions, Logger) throws -> any RequestHandler) throws {
        let handler = try makeHandler(flags, options, logger)
        let worker = ServiceWorker(service: options.shard.serviceName(service.name), options: options, handler: handler,
                                   context: try Context(), logger: logger)
        try Lifecycle.serve(stopper: worker.stopper, parentPID: options.parentPID, logger: logger) { try worker.run() }
    }
}
