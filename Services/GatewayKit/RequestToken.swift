import Foundation

/// The return address the broker gives a worker in place of the client's: an 8-byte request id,
/// so replies from a worker holding many requests of one client map back one to one.
enum RequestToken {
    static func encode(_ id: UInt64) -> Data {
        withUnsafeBytes(of: id.bigEndian) { Data($0) }
    }

    static func decode(_ data: Data) -> UInt64? {
        guard data.count == 8 else { return nil }
        return data.reduce(0) { ($0 << 8) | UInt64($1) }
    }
}
