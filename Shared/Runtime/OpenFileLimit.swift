import Foundation

/// The process's limit on open file descriptors (RLIMIT_NOFILE). Every socket a server holds, ZeroMQ
/// peers and HTTP connections alike, takes one; the soft limit many systems start a process with
/// (1,024) is far below what the hard limit allows.
public enum OpenFileLimit {
    /// The soft limit now in force.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit (an unprivileged process may) and returns the soft
    /// limit in force afterwards.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return current }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return current
    }
}
