import Foundation

/// Free TCP ports on 127.0.0.1 for the processes a test starts. They are drawn below the kernel's
/// ephemeral range (32768 and up), so an outgoing connection can never take one between the check
/// and the bind, and never handed out twice in one test run.
enum Ports {
    private static let range = 10_000...32_000
    nonisolated(unsafe) private static var handedOut = Set<Int>()
    private static let lock = NSLock()

    /// A port nobody is bound to right now.
    static func free() -> Int {
        lock.withLock {
            while true {
                let port = Int.random(in: range)
                if !handedOut.contains(port) && isFree(port) {
                    handedOut.insert(port)
                    return port
                }
            }
        }
    }

    static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0
    }

    /// A base port N with N, N+1, N+2 and N+3 free, as the launcher uses them.
    static func freeBase() -> Int {
        lock.withLock {
            while true {
                let base = Int.random(in: range)
                let ports = base...(base + 3)
                if ports.allSatisfy({ !handedOut.contains($0) && isFree($0) }) {
                    handedOut.formUnion(ports)
                    return base
                }
            }
        }
    }
}
