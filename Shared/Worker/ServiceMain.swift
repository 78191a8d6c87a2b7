import Foundation
import Runtime
import SQLite
import Schema
import ZeroMQ

/// What every service's `main.swift` does: parse flags, build the handler, trap signals, serve, exit.
public enum ServiceMain {
    /// Never returns. Exit codes: 0 stopped cleanly, 1 failed to start or crashed, 64 usage error.
    /// `settings` are the service's own flags, besides every worker's (`WorkerOptions`).
    /// `workerDefaults` are the worker flags' defaults for this service (the apns sender's credit).
    /// `makeHandler` builds the handler and adds the service's side loops, if any, to `SideLoops`.
    public static func run<Settings: Options>(_ service: Service, summary: String, settings: Settings.Type,
                                              workerDefaults: WorkerOptions = WorkerOptions(),
                                              makeHandler: (Settings, WorkerOptions, Logger, SideLoops) throws -> any RequestHandler) -> Never {
        let (settings, options) = parse(service, summary: summary, settings: settings, workerDefaults: workerDefaults)
        let logger = Logger(label: service.name, level: options.logLevel)
        do {
            try DataDirectory.prepare(options.dataDirectory, logger: logger)
            try serve(service, options, logger) { options, logger, sides in try makeHandler(settings, options, logger, sides) }
            logger.info("stopped")
            exit(0)
        } catch {
            logger.error("service failed", ["error": error])
            exit(1)
        }
    }

    /// A service that keeps nothing (`StatelessHandler`): no database, its requests answered as they
    /// finish (the apns sender). Never returns; the same exit codes.
    public static func run<Settings: Options>(_ service: Service, summary: String, settings: Settings.Type,
                                              workerDefaults: WorkerOptions = WorkerOptions(),
                                              stateless makeHandler: (Settings, WorkerOptions, Logger) throws -> any StatelessHandler) -> Never {
        let (settings, options) = parse(service, summary: summary, settings: settings, workerDefaults: workerDefaults)
        let logger = Logger(label: service.name, level: options.logLevel)
        do {
            try DataDirectory.prepare(options.dataDirectory, logger: logger)
            let handler = try makeHandler(settings, options, logger)
            let worker = StatelessWorker(service: options.shard.serviceName(service.name), options: options, handler: handler,
                                         context: try Context(), logger: logger)
            try Lifecycle.serve(stopper: worker.stopper, parentPID: options.parentPID, logger: logger) { try worker.run() }
            logger.info("stopped")
            exit(0)
        } catch {
            logger.error("service failed", ["error": error])
            exit(1)
        }
    }

    /// The service's settings and the worker's, from flags and `PUSHBUS_*` variables; exits 64 with
    /// the reason on a usage error.
    private static func parse<Settings: Options>(_ service: Service, summary: String, settings: Settings.Type,
                                                 workerDefaults: WorkerOptions) -> (Settings, WorkerOptions) {
        let flags = Flags.parseOrExit(program: service.name, summary: summary, flags: WorkerOptions.flags(defaults: workerDefaults) + Settings.flags)
        do throws(UsageError) {
            return (try Settings(flags), try WorkerOptions(flags, defaults: workerDefaults))
        } catch { Flags.exitUsage(service.name, error) }
    }

    /// A service with no flags of its own.
    public static func run(_ service: Service, summary: String,
                           makeHandler: (WorkerOptions, Logger) throws -> any RequestHandler) -> Never {
        run(service, summary: summary, settings: NoSettings.self) { _, options, logger, _ in try makeHandler(options, logger) }
    }

    /// Returns once stopped, after the worker has said goodbye, the side loops have stopped and the
    /// handler has closed; the handler (and with it the database) is released on the way out, before
    /// the process exits.
    private static func serve(_ service: Service, _ options: WorkerOptions, _ logger: Logger,
                              _ makeHandler: (WorkerOptions, Logger, SideLoops) throws -> any RequestHandler) throws {
        let sides = SideLoops()
        let handler = try makeHandler(options, logger, sides)
        warnIfAlone(handler.storage.store, service: service, options: options, logger: logger)
        let context = try Context()
        let worker = ServiceWorker(service: options.shard.serviceName(service.name), options: options, handler: handler,
                                   context: context, logger: logger)
        sides.start(context: context, logger: logger)
        try Lifecycle.serve(stopper: worker.stopper, parentPID: options.parentPID, logger: logger) { try worker.run() }
        sides.stop()
        try handler.close()
    }

    /// A database made just now beside other services' data, in a deployment older than a minute
    /// (its server.key, written once at first start, says how old), means this service's data was
    /// lost or moved away (the others remember devices and events it no longer has), or that the
    /// service is new here: say so, naming the file. Its events start a new epoch, so subscribers
    /// follow its new history rather than skip it.
    private static func warnIfAlone(_ store: Store, service: Service, options: WorkerOptions, logger: Logger) {
        guard store.isNew, !store.isInMemory else { return }
        let directory = options.dataDirectory
        let files = FileManager.default
        guard let born = try? files.attributesOfItem(atPath: "\(directory)/server.key")[.modificationDate] as? Date,
              born < Date().addingTimeInterval(-60) else { return }
        let others = ((try? files.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.hasSuffix(".sqlite") && !$0.hasPrefix(service.name + ".") && !$0.hasPrefix(service.name + "-")
        }.sorted()
        guard !others.isEmpty else { return }
        logger.warning("started on a new, empty database while the data directory holds other services' data: if this service ran here before, its data was lost",
                       ["file": store.path, "others": others.joined(separator: ",")])
    }
}
