/// A response's headers as libcurl hands them over, one line per call. A new status line
/// starts over, so only the final response's headers are kept (not those of an informational 1xx).
struct ResponseHead {
    private(set) var headers: [String: String] = [:]

    mutating func take(line: UnsafeRawBufferPointer) {
        if line.starts(with: Self.statusPrefix) {
            headers.removeAll(keepingCapacity: true)
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = Self.trimmed(line[..<colon])
        guard !name.isEmpty else { return }
        headers[Self.lowerCased(name)] = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
    }

    mutating func reset() { headers.removeAll(keepingCapacity: true) }

    private static let statusPrefix = Array("HTTP/".utf8)

    /// HTTP/2 names arrive lower-case already (the protocol requires it); an HTTP/1.1 answer's may not.
    private static func lowerCased(_ name: Slice<UnsafeRawBufferPointer>) -> String {
        let upper: (UInt8) -> Bool = { $0 >= 0x41 && $0 <= 0x5A }
        guard name.contains(where: upper) else { return String(decoding: name, as: UTF8.self) }
        return String(decoding: name.map { upper($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = bytes.firstIndex(where: { !space($0) }), let last = bytes.lastIndex(where: { !space($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }
}
