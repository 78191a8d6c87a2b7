import Foundation

/// A statement's text as the key its prepared statement is cached under. Hashed by its length and
/// three 8-byte samples (start, middle, end) instead of every byte: a lookup per statement run,
/// each SQL text 40 to 200 bytes, made hashing the tagging worker's fifth-largest cost. Texts that
/// share a hash are told apart by `==`, which compares them whole, byte for byte: two spellings of
/// one text (`é` composed and not) are equal as `String`s but are different SQL to SQLite.
struct StatementKey: Hashable {
    let sql: String

    static func == (a: StatementKey, b: StatementKey) -> Bool {
        let compared: Bool?? = a.sql.utf8.withContiguousStorageIfAvailable { x in
            b.sql.utf8.withContiguousStorageIfAvailable { y in
                guard x.count == y.count else { return false }
                guard let left = x.baseAddress, let right = y.baseAddress, left != right else { return true }
                return memcmp(left, right, x.count) == 0
            }
        }
        return (compared ?? nil) ?? a.sql.utf8.elementsEqual(b.sql.utf8)
    }

    func hash(into hasher: inout Hasher) {
        let sampled: Void? = sql.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes.count)
            guard bytes.count >= 8, let start = bytes.baseAddress else { return hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
            func word(endingAt end: Int) -> UInt64 { UnsafeRawPointer(start + end - 8).loadUnaligned(as: UInt64.self) }
            hasher.combine(word(endingAt: 8))
            hasher.combine(word(endingAt: max(8, bytes.count / 2)))
            hasher.combine(word(endingAt: bytes.count))
        }
        // A text not stored contiguously (bridged) is hashed whole.
        if sampled == nil { hasher.combine(sql) }
    }
}
