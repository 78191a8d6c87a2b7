import CSQLite
import Foundation

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement. Owned by its `Database`, which caches and reuses it.
public final class Statement {
    let handle: OpaquePointer
    let sql: String
    private unowned let database: Database

    init(database: Database, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard status == SQLITE_OK, let handle else { throw database.error(status, sql: sql) }
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }


    /// Clears previous bindings and binds `arguments` to parameters 1...n.
    func bind(_ arguments: [any Bindable]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch argument.sqliteValue {
            case .null: status = sqlite3_bind_null(handle, index)
            case .integer(let v): status = sqlite3_bind_int64(handle, index, v)
            case .real(let v): status = sqlite3_bind_double(handle, index, v)
            case .text(var v):
                // The string's own UTF-8 (a small one's, on the stack), copied by SQLite: no C string made.
                status = v.withUTF8 { utf8 in
                    // An empty string has no base address, and a null pointer would bind NULL, not ''.
                    guard let start = utf8.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, nil) }
                    // Up to a NUL, as the C string bound before did (memchr: libc's vectorized scan).
                    let count = memchr(start, 0, utf8.count).map { UnsafeRawPointer($0) - UnsafeRawPointer(start) } ?? utf8.count
                    return start.withMemoryRebound(to: CChar.self, capacity: count) {
                        sqlite3_bind_text(handle, index, $0, Int32(count), transient)
                    }
                }
            case .blob(let v):
                status = v.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32(v.count), transient) }
            }
            guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
        }
    }

    /// Steps once; returns the row, or nil when done.
    func step() throws(SQLiteError) -> Row? {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return currentRow()
        case SQLITE_DONE: return nil
        default:
            let error = database.error(status, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    func reset() { sqlite3_reset(handle) }

    /// Column names, read once: they never change for a prepared statement.
    private lazy var names: [String] = (0..<sqlite3_column_count(handle)).map {
        String(cString: sqlite3_column_name(handle, $0))
    }

    private func currentRow() -> Row {
        let count = sqlite3_column_count(handle)
        var values: [Value] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count { values.append(value(at: column)) }
        return Row(names: names, values: values)
    }

    private func value(at column: Int32) -> Value {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(handle, column)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}
