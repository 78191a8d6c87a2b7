import Credentials

/// The start-up step of every PushBus process that keeps data: its new files private to its user
/// (`PrivateFiles`), and its data directory created 0700, or closed to other users with a log line
/// when an older release (or an operator) left it open.
public enum DataDirectory {
    /// Call first thing, before threads start. Throws when the directory cannot be created.
    public static func prepare(_ path: String, logger: Logger) throws {
        PrivateFiles.restrictNewFiles()
        switch try PrivateFiles.prepareDirectory(path) {
        case .ready:
            break
        case .closed(let names):
            logger.notice("data directory was open to other users, now only this user may read it",
                          ["path": path, "closed": names.joined(separator: ",")])
        case .leftOpen(let mode):
            logger.warning("data directory is open to other users and is not ours to close; new files are 0600",
                           ["path": path, "mode": String(mode, radix: 8)])
        }
    }
}
