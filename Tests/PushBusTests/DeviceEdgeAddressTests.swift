import HTTP
import Runtime
import Testing
@testable import ApiKit

/// Whose address an unsigned registration is counted against at the device edge.
@Suite("device edge: client addresses")
struct DeviceEdgeAddressTests {
    static func request(peer: String, forwardedFor: String?) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/v1/device/device.register", headers: forwardedFor.map { [("X-Forwarded-For", $0)] } ?? [], peer: peer)
    }

    @Test func addressRangesParseAndMatch() throws {
        let ranges = try AddressRanges("10.0.0.0/8, 192.0.2.7", flag: "trusted-proxy")
        #expect(ranges.contains("10.200.3.4") && ranges.contains("192.0.2.7") && ranges.contains("::ffff:10.1.1.1"))
        #expect(!ranges.contains("11.0.0.1") && !ranges.contains("192.0.2.8") && !ranges.contains("2001:db8::1") && !ranges.contains(""))
        #expect(ranges.description == "10.0.0.0/8,192.0.2.7")
        #expect(try AddressRanges("0.0.0.0/0", flag: "x").contains("203.0.113.9"))
        #expect(throws: UsageError.self) { try AddressRanges("10.0.0.0/33", flag: "x") }
        #expect(throws: UsageError.self) { try AddressRanges("example.com", flag: "x") }
        #expect(AddressRanges().isEmpty && !AddressRanges().contains("127.0.0.1"))
    }

    @Test func forwardedForIsBelievedOnlyFromATrustedProxy() throws {
        let proxies = try AddressRanges("10.0.0.0/8", flag: "trusted-proxy")
        // A client that is no proxy names whatever it likes: its own address counts.
        #expect(DeviceEdge.clientAddress(Self.request(peer: "203.0.113.5", forwardedFor: "198.51.100.1"), trusting: proxies) == "203.0.113.5")
        // Through a trusted proxy: the address that proxy appended.
        #expect(DeviceEdge.clientAddress(Self.request(peer: "10.0.0.2", forwardedFor: "198.51.100.1"), trusting: proxies) == "198.51.100.1")
        // A client writing its own X-Forwarded-For through the proxy: the proxy appends the real
        // address last, and the entries before it are the client's inventions.
        #expect(DeviceEdge.clientAddress(Self.request(peer: "10.0.0.2", forwardedFor: "1.2.3.4, 198.51.100.1"), trusting: proxies) == "198.51.100.1")
        // Two trusted proxies in a row: the nearest address that is not one of them.
        #expect(DeviceEdge.clientAddress(Self.request(peer: "10.0.0.2", forwardedFor: "1.2.3.4, 198.51.100.1, 10.0.0.9"), trusting: proxies) == "198.51.100.1")
        // A trusted proxy that forwarded nothing: the proxy itself.
        #expect(DeviceEdge.clientAddress(Self.request(peer: "10.0.0.2", forwardedFor: nil), trusting: proxies) == "10.0.0.2")
        // A proxy that appends a line of its own: the client's line comes first, and is not believed.
        var twoLines = Self.request(peer: "10.0.0.2", forwardedFor: "10.4.7.1")
        twoLines.headers.append(("x-forwarded-for", "198.51.100.8"))
        #expect(DeviceEdge.clientAddress(twoLines, trusting: proxies) == "198.51.100.8")
        // Nobody trusted: never believed.
        #expect(DeviceEdge.clientAddress(Self.request(peer: "10.0.0.2", forwardedFor: "198.51.100.1"), trusting: AddressRanges()) == "10.0.0.2")
    }
}
