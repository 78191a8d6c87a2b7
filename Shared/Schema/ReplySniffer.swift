import Foundation

/// Reads `seq` and `code` from a reply frame without parsing all of it. Replies are written with
/// sorted keys and neither key can appear inside our own strings' values before the real one is
/// last, so the last `"seq":` and the first `"code":` are the fields.
public enum ReplySniffer {
    private static let seqKey = Array("\"seq\":".utf8)
    private static let codeKey = Array("\"code\":".utf8)

    public static func seq(_ reply: Data) -> Int? {
        reply.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let at = lastIndex(of: seqKey, in: bytes) else { return nil }
            return integer(in: bytes, from: at + seqKey.count)
        }
    }

    public static func code(_ reply: Data) -> Int? {
        reply.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let at = firstIndex(of: codeKey, in: bytes) else { return nil }
            return integer(in: bytes, from: at + codeKey.count)
        }
    }

    private static func integer(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }

    private static func firstIndex(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        outer: for start in 0...(bytes.count - needle.count) {
            for (offset, byte) in needle.enumerated() where bytes[start + offset] != byte { continue outer }
            return start
        }
        return nil
    }

    private static func lastIndex(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        outer: for start in stride(from: bytes.count - needle.count, through: 0, by: -1) {
            for (offset, byte) in needle.enumerated() where bytes[start + offset] != byte { continue outer }
            return start
        }
        return nil
    }
}
