import CSQLite
import Foundation

extension Database {
    /// How long a statement waits for a lock another connection holds before it fails with
    /// SQLITE_BUSY: in steps of 0.1 ms for the first 10 ms, then of 1 ms. SQLite's own
    /// `busy_timeout` sleeps 1, 2, 5, 10 … 100 ms between tries, which kept a thread asleep long
    /// after another connection's short transaction had ended (measured: the push fan-out's two
    /// threads each waited more than they worked).
    public func setBusyWait(milliseconds: Int) {
        // The limit travels as the handler's context pointer: a C callback captures nothing.
        let maxTries = Self.fineTries + max(0, milliseconds - Self.fineTries / 10)
        sqlite3_busy_handler(handle, { maxTries, triedSoFar in
            guard Int(triedSoFar) < Int(bitPattern: maxTries) else { return 0 }
            usleep(Int(triedSoFar) < Database.fineTries ? 100 : 1000)
            return 1
        }, UnsafeMutableRawPointer(bitPattern: maxTries))
    }

    /// No waiting: a statement that finds a lock held fails with SQLITE_BUSY at once.
    public func neverWaitWhenBusy() { sqlite3_busy_handler(handle, nil, nil) }

    /// Tries 0.1 ms apart before the waits grow to 1 ms: the first 10 ms.
    fileprivate static let fineTries = 100
}
