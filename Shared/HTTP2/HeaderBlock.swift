import CNGHTTP2
import Foundation

/// The loop's one scratch buffer for a request's header block: the bytes of every name and value,
/// then the `nghttp2_nv` array pointing into them, rebuilt per request without allocating once
/// the buffers have grown. nghttp2 copies the block when the request is submitted.
final class HeaderBlock {
    private var bytes: [UInt8] = []
    private var spans: [(name: Range<Int>, value: Range<Int>, indexed: Bool)] = []
    private var fields = UnsafeMutablePointer<nghttp2_nv>.allocate(capacity: 32)
    private var capacity = 32

    deinit { fields.deallocate() }

    /// Headers HTTP/2 forbids (RFC 9113 §8.2.2) or makes a pseudo-header of (`host`).
    private static let forbidden: [[UInt8]] = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "te"]
        .map { Array($0.utf8) }

    /// Why `request` cannot go on the wire as given, or nil. Run at intake, before anything is written.
    static func problem(_ request: HTTP2Request) -> String? {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(isToken) else { return "method \(request.method.debugDescription) is not a token" }
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isToken) else { return "header name \(name.debugDescription) is empty or not a token" }
            guard !hasLineBreakOrNUL(value) else { return "header \(name) has CR, LF or NUL in its value" }
            if isForbidden(name) { return "header \(name) is connection-specific, not allowed in HTTP/2" }
        }
        return nil
    }

    /// Whether `value` holds CR, LF or NUL: by `memchr` over the string's own bytes (a provider
    /// token of some 250 bytes is in every request), byte by byte only for a string not stored
    /// contiguously.
    private static func hasLineBreakOrNUL(_ value: String) -> Bool {
        let found = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0x0D, bytes.count) != nil || memchr(base, 0x0A, bytes.count) != nil || memchr(base, 0, bytes.count) != nil
        }
        return found ?? value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }

    /// Compared byte by byte, ASCII case ignored: no lower-cased copy per header.
    private static func isForbidden(_ name: String) -> Bool {
        let count = name.utf8.count
        guard count <= 17 else { return false }  // the longest forbidden name, transfer-encoding
        return forbidden.contains { forbidden in
            forbidden.count == count && zip(forbidden, name.utf8).allSatisfy { $0 == ($1 >= 0x41 && $1 <= 0x5A ? $1 | 0x20 : $1) }
        }
    }

    /// RFC 9110 tchar, by a table: every byte of every header name of every request is looked up.
    private static func isToken(_ byte: UInt8) -> Bool { tokenBytes[Int(byte)] }

    private static let tokenBytes: [Bool] = (0...255).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Builds the block of `exchange` for `origin` and runs `body` with it (valid only inside).
    func with<R>(_ exchange: Exchange, scheme: String, authority: String,
                          _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        let request = exchange.request
        add(":method", request.method, lowerName: false, indexed: true)
        add(":scheme", scheme, lowerName: false, indexed: true)
        add(":authority", authority, lowerName: false, indexed: true)
        let nameStart = bytes.count
        bytes.append(contentsOf: ":path".utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: request.url.utf8.dropFirst(exchange.pathStart))
        if bytes.count == valueStart || bytes[valueStart] != UInt8(ascii: "/") { bytes.insert(UInt8(ascii: "/"), at: valueStart) }
        spans.append((nameStart..<valueStart, valueStart..<bytes.count, !request.unindexed.contains(":path")))
        for (name, value) in request.headers {
            add(name, value, lowerName: true, indexed: request.unindexed.isEmpty || !request.unindexed.contains(name))
        }
        if spans.count > capacity {
            fields.deallocate()
            capacity = spans.count * 2
            fields = .allocate(capacity: capacity)
        }
        let fields = self.fields
        let spans = self.spans
        return bytes.withUnsafeMutableBufferPointer { base in
            for (index, span) in spans.enumerated() {
                fields[index] = nghttp2_nv(name: base.baseAddress! + span.name.lowerBound, value: base.baseAddress! + span.value.lowerBound,
                                           namelen: span.name.count, valuelen: span.value.count,
                                           flags: UInt8(span.indexed ? NGHTTP2_NV_FLAG_NONE.rawValue : NGHTTP2_NV_FLAG_NO_INDEX.rawValue))
            }
            return body(fields, spans.count)
        }
    }

    private func add(_ name: String, _ value: String, lowerName: Bool, indexed: Bool) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        if lowerName {
            // Names are nearly always lower-case already: copied whole, then mended in place.
            for index in nameStart..<bytes.count where bytes[index] >= 0x41 && bytes[index] <= 0x5A { bytes[index] |= 0x20 }
        }
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        spans.append((nameStart..<valueStart, valueStart..<bytes.count, indexed))
    }
}
