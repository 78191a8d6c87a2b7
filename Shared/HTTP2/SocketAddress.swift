import CTLS

/// One socket address as getaddrinfo gave it: bytes that can cross threads.
struct SocketAddress: Sendable {
    var family: Int32
    var bytes: [UInt8]

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        bytes.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }
    }
}
