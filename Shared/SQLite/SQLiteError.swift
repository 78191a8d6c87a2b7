import CSQLite

/// A failed SQLite call: the result code, SQLite's message, the statement and the database file.
public struct SQLiteError: Error, CustomStringConvertible, Equatable, Sendable {
    public let code: Int32
    public let message: String
    public let sql: String?
    /// The database file the connection has open, so a log line says which one failed.
    public let path: String?

    public init(code: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// True when the file is damaged or is no database at all (SQLITE_CORRUPT, SQLITE_NOTADB): no
    /// retry helps, the file needs restoring.
    public var isDamage: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }

    /// True when another connection holds the lock this call needed (SQLITE_BUSY).
    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY }

    public var description: String {
        let place = path.map { "\($0): " } ?? ""
        if let sql { return "SQLite error \(code): \(place)\(message) (in \(sql))" }
        return "SQLite error \(code): \(place)\(message)"
    }
}
