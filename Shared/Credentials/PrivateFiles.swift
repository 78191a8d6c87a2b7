import Foundation

/// PushBus's files hold secrets, device tokens, phone numbers and MA personal data, so only the user
/// that runs it may read them, whoever creates them: every executable calls `restrictNewFiles()`
/// first, and every data directory goes through `prepareDirectory`.
public enum PrivateFiles {
    /// Takes group and other permissions off every file and directory this process creates from now
    /// on (umask 077): SQLite makes its databases and their -wal, -shm and -journal files itself,
    /// with 0644 less the umask, so the umask is the one place that covers them all, and the backups,
    /// recordings and secrets besides. The umask is process-wide: call it before starting threads.
    public static func restrictNewFiles() {
        umask(0o077)
    }

    /// What `prepareDirectory` did, for the caller to log.
    public enum Outcome: Equatable, Sendable {
        /// The directory is new (0700), or was already closed to others with every file in it.
        case ready
        /// The directory or files in it (named) were open to group or others; now they are not.
        case closed([String])
        /// The directory is open to others and this process may not change that: another user owns
        /// it, or it is a shared sticky directory such as /tmp.
        case leftOpen(mode: mode_t)
    }

    /// Creates `path` (and missing parents) with mode 0700; when it exists, takes group and other
    /// permissions off it and off this user's files directly in it. Throws when it cannot be created.
    @discardableResult
    public static func prepareDirectory(_ path: String) throws -> Outcome {
        var info = stat()
        guard stat(path, &info) == 0 else {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            return .ready
        }
        let open = info.st_mode & 0o077 != 0
        if open && (info.st_uid != geteuid() || info.st_mode & S_ISVTX != 0) {
            return .leftOpen(mode: info.st_mode & 0o7777)
        }
        var closed: [String] = []
        if open, chmod(path, info.st_mode & 0o7700) == 0 { closed.append(".") }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? [] {
            let file = (path as NSString).appendingPathComponent(name)
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
                  info.st_mode & 0o077 != 0, chmod(file, info.st_mode & 0o7700) == 0 else { continue }
            closed.append(name)
        }
        return closed.isEmpty ? .ready : .closed(closed)
    }
}
