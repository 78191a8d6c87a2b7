import Foundation

/// An exclusive lock (`flock`) on a file of its own, held until `unlock` or release, so one holder
/// at a time works on what the file guards; another process's try fails at once instead of waiting.
/// The file is made if missing and never removed (a lock on a removed file guards nothing).
public final class FileLock {
    public let path: String
    private var descriptor: Int32

    /// Takes the lock on `path`; throws when another holder has it.
    public init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno == EWOULDBLOCK ? "held by another process" : String(cString: strerror(errno))
            close(descriptor)
            throw Failure(path: path, reason: reason)
        }
    }

    /// Lets the lock go; later calls do nothing.
    public func unlock() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { unlock() }

    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot lock \(path): \(reason)" }
    }
}
