import Foundation

/// The one spelling under which a name people type (a tag, an alias, a channel) is checked, stored
/// and compared: Unicode NFC. Swift compares strings by canonical equivalence but SQLite compares
/// bytes, so U+F900 and U+8C48 (its canonical decomposition) were one tag in memory and two in the
/// database. Every rule that takes such a name returns this form, and byte limits apply to it: what
/// is counted is what is stored, as the public service counts.
public enum CanonicalForm {
    /// `text` in NFC; ASCII, which is always NFC, comes back as it is without a trip through Foundation.
    public static func of(_ text: String) -> String {
        isASCII(text) ? text : text.precomposedStringWithCanonicalMapping
    }

    /// Whether `text` is all ASCII, and so in NFC as it is.
    public static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }
}
