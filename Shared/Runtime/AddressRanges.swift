import Foundation

/// A list of IPv4 addresses and CIDR ranges (`10.0.0.0/8,127.0.0.1`), from a flag: the peers a
/// process trusts to speak for others (the gateway its device edges, the api its TLS proxies).
/// Matches an address's text as a socket reports it; IPv6 peers and unparsable text never match.
public struct AddressRanges: Sendable, Equatable, CustomStringConvertible {
    private var ranges: [(network: UInt32, mask: UInt32)]

    /// Empty: trusts nobody.
    public init() { ranges = [] }

    /// Parses `text`, comma-separated; throws naming the first entry that is not an IPv4 address
    /// or `address/bits`.
    public init(_ text: String, flag: String) throws(UsageError) {
        ranges = []
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let address = Self.parse(String(parts[0])) else {
                throw UsageError("--\(flag): \(entry) is not an IPv4 address or CIDR range")
            }
            var bits = 32
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...32).contains(given) else { throw UsageError("--\(flag): \(entry) has no prefix length 0...32") }
                bits = given
            }
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << UInt32(32 - bits)
            ranges.append((address & mask, mask))
        }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` ("192.0.2.1", or "::ffff:192.0.2.1" from a dual-stack socket) is in a range.
    public func contains(_ address: String) -> Bool {
        guard !ranges.isEmpty else { return false }
        let text = address.hasPrefix("::ffff:") ? String(address.dropFirst(7)) : address
        guard let value = Self.parse(text) else { return false }
        return ranges.contains { value & $0.mask == $0.network }
    }

    public var description: String {
        ranges.map { range in
            let bits = range.mask.nonzeroBitCount
            let octets = (0..<4).map { String((range.network >> UInt32(24 - 8 * $0)) & 0xFF) }.joined(separator: ".")
            return bits == 32 ? octets : "\(octets)/\(bits)"
        }.joined(separator: ",")
    }

    public static func == (lhs: AddressRanges, rhs: AddressRanges) -> Bool { lhs.description == rhs.description }

    private static func parse(_ text: String) -> UInt32? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return UInt32(bigEndian: address.s_addr)
    }
}
