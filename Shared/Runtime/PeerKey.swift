import Foundation

/// Who a peer is for a per-address limit, from libzmq's `Peer-Address` text or an HTTP client's address: an IPv4 address, or an
/// IPv6 address's /64 (one host is usually given a whole /64, so its addresses count as one). Peers
/// without an IP (ipc, inproc) or with an address that does not parse share one key. Inline values,
/// no allocation.
public enum PeerKey: Hashable, Sendable {
    case v4(UInt32)
    case v6(UInt64)
    case other

    public init(address: String?) {
        guard let address else {
            self = .other
            return
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else {
            self = .other
            return
        }
        self = withUnsafeBytes(of: &v6) { bytes in
            // An IPv4 peer of a dual-stack socket shows as ::ffff:a.b.c.d.
            if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return .v4(bytes[12...].reduce(0) { $0 << 8 | UInt32($1) })
            }
            return .v6(bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
        }
    }
}
