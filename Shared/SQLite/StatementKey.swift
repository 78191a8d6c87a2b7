import Foundation

/// A statement's text as the key its prepared statement is cached under. Hashed by its length and
/// three 8-byte samples (start, middle, end) instead of every byte: a lookup per statement run,
/// each SQL text 40 to 200 bytes, made hashing the tagging worker's fifth-largest cost. Texts that
/// share a hash are told apart by `==`, which compares them whole, byte for byte: two spellings of
/// one text (`é` composed and not) are equal as `String`s but are different SQL to SQLite.
struct StatementKey: Hashable {
    let sql: String

    static func == (a: StatementKey, b: StatementKey) -> Bool {
        var (x, y) = (a.sql, b.sql)
        return x.withUTF8 { x in
            y.withUTF8 { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }
    }

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { bytes in
            hasher.combine(bytes.count)
            guard bytes.count >= 8, let start = bytes.baseAddress else { return hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
            func word(endingAt end: Int) -> UInt64 { UnsafeRawPointer(start + end - 8).loadUnaligned(as: UInt64.self) }
            hasher.combine(word(endingAt: 8))
            hasher.combine(word(endingAt: max(8, bytes.count / 2)))
            hasher.combine(word(endingAt: bytes.count))
        }
    }
}
