import Foundation

/// The statements a connection ran last, found by where their SQL text lies in memory: a table of
/// 256 slots, one statement each, picked by the text's address. The SQL a service runs per request
/// is a string literal, whose bytes lie at one address for the life of the process, so each one
/// keeps finding its slot, at the cost of a few instructions. (The `StatementKey` dictionary behind
/// it costs some 800 a look-up, a hash of the text included: nine statements a request made it 4 %
/// of the tagging worker's instructions, docs/benchmarks.md.)
///
/// The address only picks the slot. A hit needs the same length and the same bytes too, compared
/// whole, so a text made at run time whose memory another text takes later never finds the
/// other's statement. Two texts whose addresses share a slot take it in turn and both still work.
/// (Texts of 15 bytes or less are copied to the stack to be read, all to one place: they share a
/// slot and are found in the dictionary.) It holds only statements the dictionary holds: it is
/// emptied whenever the dictionary starts over.
struct RecentStatements {
    private struct Slot {
        var address: UnsafeRawPointer?
        var statement: Statement?
    }

    static let slotCount = 256
    private var slots = [Slot](repeating: Slot(), count: slotCount)

    /// The statement last kept for `text` (the SQL's UTF-8), if its slot still holds it.
    func statement(for text: UnsafeBufferPointer<UInt8>) -> Statement? {
        guard let start = text.baseAddress else { return nil }
        let slot = slots[Self.index(start)]
        guard slot.address == UnsafeRawPointer(start), let statement = slot.statement, statement.hasText(text) else { return nil }
        return statement
    }

    /// Keeps `statement` in the slot of `text`, replacing whatever held it.
    mutating func keep(_ statement: Statement, for text: UnsafeBufferPointer<UInt8>) {
        guard let start = text.baseAddress else { return }
        slots[Self.index(start)] = Slot(address: UnsafeRawPointer(start), statement: statement)
    }

    mutating func removeAll() {
        for index in slots.indices { slots[index] = Slot() }
    }

    /// The top 8 bits of the address times a large odd constant (Fibonacci hashing): literals lie
    /// packed at any alignment, and every bit of the address moves the slot.
    private static func index(_ address: UnsafePointer<UInt8>) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: address)) &* 0x9E37_79B9_7F4A_7C15) >> 56)
    }
}
