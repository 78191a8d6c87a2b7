/// How every long-running executable stops: SIGINT/SIGTERM, or its launcher going away, asks its
/// loop to stop through `stopper`; `run` blocks until the loop has finished.
public enum Lifecycle {
    public static func serve(stopper: Stopper, parentPID: String?, logger: Logger, run: () throws -> Void) throws {
        SignalTrap.onTerminate { signal in
            logger.info("stopping", ["signal": signal])
            stopper.request()
        }
        let watch = ParentWatch(parent: parentPID) {
            logger.warning("launcher is gone, stopping")
            stopper.request()
        }
        try withExtendedLifetime(watch) { try run() }
    }
}
