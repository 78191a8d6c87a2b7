import CTLS
import Glibc
import Threads

/// Name lookups that never block the loop: getaddrinfo runs on a short-lived thread of its own,
/// and its answer comes back through the inbox as `.resolved`. An IP address is looked up in
/// place (getaddrinfo does not block on one).
enum Resolver {
    typealias Answer = Result<[SocketAddress], HTTP2Failure>

    static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }
    }

    /// Looks `host` up on a thread of its own and posts the answer for origin `key`.
    static func start(_ host: String, port: Int, key: String, inbox: Inbox<LoopCommand>) {
        NamedThread.start("http2-resolve") {
            inbox.post(.resolved(key: key, answer: lookUp(host, port: port)))
        }
    }

    static func lookUp(_ host: String, port: Int) -> Answer {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (isAddress(host) ? AI_NUMERICHOST : 0)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let found else { return .failure(.notSent("cannot resolve \(host): \(String(cString: gai_strerror(status)))")) }
        defer { freeaddrinfo(found) }
        var addresses: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = found
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
                addresses.append(SocketAddress(family: entry.pointee.ai_family, bytes: Array(bytes)))
            }
            next = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(.notSent("no address for \(host)")) : .success(addresses)
    }
}
