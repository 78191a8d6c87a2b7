import CTCMalloc
import Glibc

/// Every PushBus executable allocates through tcmalloc (gperftools' `tcmalloc_minimal`, from
/// Debian) instead of glibc's malloc: linking this module puts it ahead of libc, so its `malloc`
/// and `free` are the ones the Swift runtime, Foundation, SQLite and libzmq call. Measured side by
/// side on the tagging mix (`Tools/bench-allocations.sh`, three alternating rounds, 2026-12-02):
/// client, gateway, registration and tagging together took 49.8 / 63.3 / 56.7 µs of CPU a command
/// (one figure a round) against 70.8 / 65.1 / 68.4 with glibc's; jemalloc gave about half that
/// gain and mimalloc none. A request's many short-lived objects are freed on the thread that made them, which tcmalloc's per-thread
/// caches serve without locks or glibc's bin consolidation (`malloc_consolidate` and `_int_free`
/// were 3–5 % of the busy processes' samples).
public enum Allocator {
    /// Whether this process's `malloc` is tcmalloc's (not glibc's, nor one preloaded ahead of it).
    public static var isTCMalloc: Bool {
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)   // RTLD_DEFAULT
        guard let malloc = dlsym(everywhere, "malloc"), let tcmalloc = dlsym(everywhere, "tc_malloc") else { return false }
        return malloc == tcmalloc
    }

    /// "gperftools 2.10", say.
    public static var version: String { String(cString: tc_version(nil, nil, nil)) }
}
