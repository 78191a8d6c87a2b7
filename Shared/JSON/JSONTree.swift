import Foundation

/// A JSON value as `JSONTreeEncoder` builds it. Objects and arrays are reference boxes so a
/// container handed out earlier can still add to them, as the Encoder protocol allows.
indirect enum JSONTree {
    case null
    case bool(Bool)
    case integer(String)
    case number(Double)
    case string(String)
    case array(ArrayBox)
    case object(ObjectBox)
    /// A value a sub-encoder fills in later (`superEncoder`), read when written out.
    case deferred(Cell)

    final class ArrayBox {
        var items: [JSONTree] = []
    }

    /// Fields in the order they were set; a key set twice keeps its last value (`JSONWriter` sorts
    /// and drops the earlier one), so setting stays O(1).
    final class ObjectBox {
        var fields: [(key: String, value: JSONTree)] = []

        func set(_ key: String, _ value: JSONTree) { fields.append((key, value)) }
    }

    final class Cell {
        var value: JSONTree?
    }
}
