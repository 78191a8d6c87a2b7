import Foundation

/// Threads started under a name the kernel shows: `top -H`, `perf` and `/proc/<pid>/task/*/comm`,
/// where an operator looks for what a process's threads do. Foundation's `Thread.name` stays inside
/// Foundation on Linux (the thread showed as the process's main one), and `pthread_setname_np` is
/// not imported without `_GNU_SOURCE`, so the thread writes its own `comm`.
public enum NamedThread {
    /// Runs `body` on a thread of its own named `name` (the kernel keeps its first 15 bytes).
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            body()
        }
        thread.name = name
        thread.start()
    }
}
