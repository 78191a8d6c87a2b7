import CAllocatorTuning
import CTCMalloc
import Foundation
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

    /// How fast tcmalloc gives freed memory back to the system: 0 never, 1 its default, at most 10.
    public static var releaseRate: Double {
        get { pushbus_tcmalloc_release_rate() }
        set { pushbus_tcmalloc_set_release_rate(newValue) }
    }

    /// Has tcmalloc keep the memory a long-running process frees, for its next allocations, instead
    /// of handing it back to the system a little at a time (`releaseRate` 0). Memory handed back is
    /// faulted in again, and zeroed, when the heap grows into it once more. At half the peak rate,
    /// page faults as tcmalloc took new spans were 4 % of the gateway's samples. In six pairs of
    /// runs at 8,500 commands/s, alternating, the stack's p99 was lower with the rate at 0 in four,
    /// the same in one and higher in one (medians 43.3 against 58.4 ms), at the same CPU
    /// (docs/benchmarks.md).
    /// A process then holds the most it has ever used; its caches are bounded, so that is bounded
    /// too. `TCMALLOC_RELEASE_RATE` in the environment, tcmalloc's own setting, wins: an operator
    /// who set it keeps it.
    public static func keepFreedMemory(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard environment["TCMALLOC_RELEASE_RATE"] == nil else { return }
        releaseRate = 0
    }
}
