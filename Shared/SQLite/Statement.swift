import CSQLite
import Foundation


/// A prepared statement. Owned by its `Database`, which caches and reuses it.
public final class Statement {
    let handle: OpaquePointer
    let sql: String
    private unowned let database: Database
    /// Its parameters: when a call binds every one, the last call's bindings need no clearing first.
    private let parameterCount: Int

    init(database: Database, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard status == SQLITE_OK, let handle else { throw database.error(status, sql: sql) }
        self.handle = handle
        self.sql = sql
        self.database = database
        parameterCount = Int(sqlite3_bind_parameter_count(handle))
    }

    deinit {
        sqlite3_finalize(handle)
        bound.deallocate()
    }

    /// Whether `other` is this statement's SQL, byte for byte.
    func hasText(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = sql
        return text.withUTF8 { $0.count == other.count && ($0.isEmpty || memcmp($0.baseAddress!, other.baseAddress!, $0.count) == 0) }
    }

    /// The bytes of the text and blob arguments bound now, which SQLite reads in place until the
    /// next bind (bound static). One buffer, kept and grown: SQLite's own copy of each argument
    /// cost an allocation per argument per statement.
    private var bound = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// Clears previous bindings and binds `arguments` to parameters 1...n.
    func bind(_ arguments: [any Bindable]) throws(SQLiteError) {
        sqlite3_reset(handle)
        // Each parameter bound below replaces its last binding; only those left unbound are cleared.
        if arguments.count < parameterCount { sqlite3_clear_bindings(handle) }
        // Read once into a local: each use of the class's property would be checked for exclusive access.
        let buffer = reserveBound(arguments.reduce(0) { $0 + $1.sqliteValue.boundByteCount })
        var used = 0
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch argument.sqliteValue {
            case .null: status = sqlite3_bind_null(handle, index)
            case .integer(let v): status = sqlite3_bind_int64(handle, index, v)
            case .real(let v): status = sqlite3_bind_double(handle, index, v)
            case .text(var v):
                // The string's own UTF-8 (a small one's, on the stack) copied into `bound`: no C string made.
                status = v.withUTF8 { utf8 in
                    // Up to a NUL, as the C string bound before did (memchr: libc's vectorized scan).
                    let count = utf8.baseAddress.flatMap { start in
                        memchr(start, 0, utf8.count).map { UnsafeRawPointer($0) - UnsafeRawPointer(start) }
                    } ?? utf8.count
                    // An empty string binds '' from `bound`, never a null pointer, which would bind NULL.
                    let text = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[..<count])
                    let start = Self.keep(text, in: buffer, at: &used)
                    return sqlite3_bind_text(handle, index, start.assumingMemoryBound(to: CChar.self), Int32(count), nil)
                }
            case .blob(let v):
                status = v.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(handle, index, Self.keep(bytes, in: buffer, at: &used), Int32(bytes.count), nil)
                }
            }
            guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
        }
    }

    /// `bound`, made to hold at least `count` bytes (and one, so '' has an address). Call after the
    /// reset: SQLite may still point into the old buffer, but every such parameter is bound again
    /// (or cleared) before the statement steps, and only a step reads them.
    private func reserveBound(_ count: Int) -> UnsafeMutableRawBufferPointer {
        let current = bound
        guard count >= current.count || current.baseAddress == nil else { return current }
        current.deallocate()
        bound = .allocate(byteCount: max(count + 1, 2 * current.count, 64), alignment: 8)
        return bound
    }

    /// Copies `bytes` into `buffer` at `used`, and returns where they now are.
    private static func keep(_ bytes: UnsafeRawBufferPointer, in buffer: UnsafeMutableRawBufferPointer,
                             at used: inout Int) -> UnsafeRawPointer {
        let start = buffer.baseAddress! + used
        if let source = bytes.baseAddress, bytes.count > 0 { start.copyMemory(from: source, byteCount: bytes.count) }
        used += bytes.count
        return UnsafeRawPointer(start)
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

extension Value {
    /// The bytes binding it copies into a statement's `bound` buffer: a text's UTF-8, a blob's bytes.
    fileprivate var boundByteCount: Int {
        switch self {
        case .text(let v): v.utf8.count
        case .blob(let v): v.count
        default: 0
        }
    }
}
