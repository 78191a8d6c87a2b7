/// The characters a tag or alias may hold, as the seeds give them: letters (case-sensitive, ASCII),
/// digits, `_`, CJK ideographs and `@!#$&*+=.|`. One table for the server (Schema's `TagRules`) and
/// the device SDK, which refuses the same input before sending it; it depends on nothing.
public enum TagCharacters {
    @inlinable public static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true  // digits, ASCII letters
        case 0x5F: true  // _
        case 0x40, 0x21, 0x23, 0x24, 0x26, 0x2A, 0x2B, 0x3D, 0x2E, 0x7C: true  // @ ! # $ & * + = . |
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF: true  // CJK ideographs, Ext. A, compatibility
        case 0x20000...0x2FA1F, 0x30000...0x323AF: true  // CJK Ext. B–I and supplements
        default: false
        }
    }
}
