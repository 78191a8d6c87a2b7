import Caches
import CSQLite
import Foundation

/// One SQLite connection, used by one thread at a time. Statements are prepared once and cached.
/// Obtain it through `Store.read` / `Store.write`, which wrap every use in a transaction. Every
/// error it throws names its file.
public final class Database {
    /// The file this connection has open (":memory:" for a private in-memory database).
    public let path: String
    let handle: OpaquePointer
    /// Statements kept prepared, at most 512; past it the cache starts over, so queries built with
    /// a varying shape (IN lists of any length) cannot grow it without bound.
    private var statements = StartOverCache<StatementKey, Statement>(limit: 512)
    /// The statements run last, found first by where their text lies (`RecentStatements`).
    private var recent = RecentStatements()
    private var savepointDepth = 0

    /// Opens (creating if needed) the database at `path`; ":memory:" gives a private in-memory one.
    public init(path: String) throws(SQLiteError) {
        Self.configureOnce
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: status, message: message, path: path)
        }
        self.path = path
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    /// The process's SQLite settings, made before its first connection opens. Nothing here reads
    /// SQLite's count of its memory, and keeping it took a process-wide mutex on every allocation
    /// and free (3 % of the tagging worker's time in `perf`, lock and unlock).
    private static let configureOnce: Void = { _ = pushbus_sqlite3_stop_counting_memory() }()

    deinit {
        recent.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no arguments and return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text, sql: sql, path: path)
        }
    }

    /// Runs a statement with arguments, discarding rows. Returns the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ arguments: any Bindable...) throws(SQLiteError) -> Int {
        try run(sql, arguments: arguments)
    }

    @discardableResult
    public func run(_ sql: String, arguments: [any Bindable]) throws(SQLiteError) -> Int {
        let statement = try prepared(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() != nil {}
        return Int(sqlite3_changes(handle))
    }

    /// All rows of a query.
    public func rows(_ sql: String, _ arguments: any Bindable...) throws(SQLiteError) -> [Row] {
        try rows(sql, arguments: arguments)
    }

    public func rows(_ sql: String, arguments: [any Bindable]) throws(SQLiteError) -> [Row] {
        let statement = try prepared(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var result: [Row] = []
        while let row = try statement.step() { result.append(row) }
        return result
    }

    /// Calls `body` with each row of a query in turn, keeping none: for results too large to gather.
    public func forEachRow(_ sql: String, _ arguments: any Bindable..., body: (Row) throws -> Void) throws {
        let statement = try prepared(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while let row = try statement.step() { try body(row) }
    }

    /// The first row of a query, or nil.
    public func row(_ sql: String, _ arguments: any Bindable...) throws(SQLiteError) -> Row? {
        let statement = try prepared(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step()
    }

    /// The first column of the first row, or `.null`.
    public func value(_ sql: String, _ arguments: any Bindable...) throws(SQLiteError) -> Value {
        let statement = try prepared(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step()?[0] ?? .null
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows inserted, updated or deleted through this connection since it opened (triggers' and
    /// cascades' included; a statement that failed and was undone counts none).
    public var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Runs `body` inside a savepoint: released on success, rolled back (and the error rethrown) on throw.
    /// Lets one request of a group-committed batch fail without undoing the others.
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let sql = SavepointSQL.at(depth: savepointDepth)
        try run(sql.begin)
        do {
            let result = try body(self)
            try run(sql.release)
            return result
        } catch {
            _ = try? run(sql.rollback)
            _ = try? run(sql.release)
            throw error
        }
    }

    /// Copies this database to `path` with SQLite's online backup API, while others keep writing
    /// through this connection's file (WAL): the copy is one consistent moment of the database.
    public func backup(to path: String) throws(SQLiteError) {
        let target = try Database(path: path)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.error(sqlite3_errcode(target.handle), sql: nil)
        }
        var status: Int32
        repeat {
            status = sqlite3_backup_step(backup, 256)
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
        sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else { throw target.error(status, sql: nil) }
    }

    /// True while a transaction is open on this connection.
    public var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func prepared(_ sql: String) throws(SQLiteError) -> Statement {
        var text = sql
        // A literal's UTF-8 in place, where it lies for the life of the process.
        if let found = text.withUTF8({ recent.statement(for: $0) }) { return found }
        let key = StatementKey(sql: sql)
        let statement: Statement
        if let cached = statements[key] {
            statement = cached
        } else {
            statement = try Statement(database: self, sql: sql)
            // The table lets go whenever the cache starts over, so the cache alone says which
            // statements live: past its limit, a text gets a new one, as before the table.
            if statements.insert(statement, forKey: key) { recent.removeAll() }
        }
        text.withUTF8 { recent.keep(statement, for: $0) }
        return statement
    }

    func error(_ status: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: status, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }
}
