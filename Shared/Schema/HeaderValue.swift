/// What may go into an HTTP/2 header value that PushBus sends to APNs (`apns-collapse-id`,
/// `apns-topic`): printable ASCII, no space at either end (RFC 9113 §8.2.1 forbids them, and curl or
/// the server would strip the header or drop the connection).
public enum HeaderValue {
    public static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
