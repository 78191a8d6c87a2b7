/// A database attached beside a store's own for data derived from it: an index that says again,
/// another way round, what the store's durable tables say, and that its owner can build again from
/// them. Its commits write to its file without waiting for the disk and keep their undo in memory,
/// so the rows it changes cost the store's commits no sync; a crash can leave it behind the store or
/// torn, which its owner must be able to tell (a mark written with `writeSyncingDerived` at a clean
/// close) before it trusts it.
extension Store {
    /// Attaches the SQLite file at `path` (":memory:" for one in memory) as schema `name`. This
    /// connection keeps it locked from its first use until `detach`, so no other connection opens
    /// it meanwhile. Between writes only.
    public func attachDerived(path: String, as name: String) throws {
        precondition(!isWriting, "a database is attached between writes")
        try db.run("ATTACH DATABASE ? AS \(name)", path)
        try db.execute("""
            PRAGMA \(name).journal_mode = MEMORY;
            PRAGMA \(name).synchronous = OFF;
            PRAGMA \(name).locking_mode = EXCLUSIVE;
            PRAGMA \(name).cache_size = -65536;
            """)
    }

    /// Detaches schema `name`, releasing its file. Between writes only.
    public func detach(_ name: String) throws {
        precondition(!isWriting, "a database is detached between writes")
        try db.run("DETACH DATABASE \(name)")
    }

    /// Runs `body` in a write (as `write`) whose commit also waits for the disk for the derived
    /// schema `name`: everything written to its file so far is on disk when this returns.
    @discardableResult
    public func writeSyncingDerived<T>(_ name: String, _ body: (Database) throws -> T) throws -> T {
        precondition(!isWriting, "a synced write is a transaction of its own")
        try db.execute("PRAGMA \(name).synchronous = FULL")
        defer { try? db.execute("PRAGMA \(name).synchronous = OFF") }
        return try write(body)
    }
}
