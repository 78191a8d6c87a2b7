import Glibc

/// Where a URL goes: `https://` or `http://` (h2c), the authority, host and port, and where the path starts.
struct Target: Equatable {
    /// "https://host:port", what requests to one origin share: the key of its pool.
    var key: String
    var secure: Bool
    var authority: String
    var host: String
    var port: Int
    var pathStart: Int

    /// Nil when the URL is not `http(s)://authority[/path]` with a usable host and port.
    init?(_ url: String) {
        let bytes = Array(url.utf8.prefix(2048))
        let https = Array("https://".utf8), http = Array("http://".utf8)
        if bytes.starts(with: https) {
            secure = true
        } else if bytes.starts(with: http) {
            secure = false
        } else {
            return nil
        }
        let start = secure ? https.count : http.count
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        guard end < bytes.count || url.utf8.count == bytes.count else { return nil }
        let authorityBytes = bytes[start..<end]
        guard !authorityBytes.isEmpty, !authorityBytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "@") }) else { return nil }
        authority = String(decoding: authorityBytes, as: UTF8.self)
        key = String(decoding: bytes[..<end], as: UTF8.self)
        pathStart = end
        let defaultPort = secure ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty {
                port = defaultPort
            } else {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            port = number
        } else {
            host = authority
            port = defaultPort
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
    }

    /// Whether `url` goes to this target's origin: its bytes start with `key` and the path starts
    /// right after. Compares bytes only, so the hot path builds no string.
    static func path(of url: String, under key: String) -> Int? {
        var url = url
        var key = key
        return url.withUTF8 { u in
            key.withUTF8 { k in
                guard u.count >= k.count, memcmp(u.baseAddress!, k.baseAddress!, k.count) == 0 else { return nil }
                guard u.count == k.count || u[k.count] == UInt8(ascii: "/") || u[k.count] == UInt8(ascii: "?") else { return nil }
                return k.count
            }
        }
    }
}
