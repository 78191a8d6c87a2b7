import Testing
import Runtime

@Suite("peer key")
struct PeerKeyTests {
    @Test func addressesCountByIPv4OrIPv6Slash64() {
        #expect(PeerKey(address: "10.1.2.3") == .v4(0x0A01_0203))
        #expect(PeerKey(address: "::ffff:10.1.2.3") == .v4(0x0A01_0203), "an IPv4 peer of a dual-stack socket")
        #expect(PeerKey(address: "2001:db8:1:2::1") == PeerKey(address: "2001:db8:1:2:ffff:ffff:ffff:ffff"), "one /64")
        #expect(PeerKey(address: "2001:db8:1:2::1") != PeerKey(address: "2001:db8:1:3::1"))
        #expect(PeerKey(address: "2001:db8:1:2::1") == .v6(0x2001_0db8_0001_0002))
        #expect(PeerKey(address: nil) == .other)
        #expect(PeerKey(address: "") == .other)
        #expect(PeerKey(address: "not an address") == .other)
    }
}
