import CMicroHTTPD
import Glibc

/// A connection's outgoing bytes, whole frames in order, written as the socket takes them. Small
/// frames are packed into one chunk so a burst of them costs one send, not one each. Empty, it
/// holds no memory.
struct OutboundQueue {
    /// What a write attempt came to.
    enum Outcome {
        case drained
        case blocked
        case failed
    }

    /// Frames this small are appended to the last chunk instead of starting a new one.
    static let packing = 4_096

    private var chunks: [[UInt8]] = []
    private var first = 0
    private var offset = 0
    /// Bytes queued and not yet written.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func push(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        count += bytes.count
        if bytes.count < Self.packing, chunks.count > first, chunks[chunks.count - 1].count < Self.packing {
            chunks[chunks.count - 1].append(contentsOf: bytes)
        } else {
            chunks.append(bytes)
        }
    }

    /// Drops every frame not yet begun, keeping the rest of the one half written so the peer never
    /// sees a torn frame.
    mutating func dropUnstarted() {
        guard chunks.count > first else { return }
        if offset == 0 {
            chunks = []
        } else {
            chunks = [Array(chunks[first][offset...])]
        }
        first = 0
        offset = 0
        count = chunks.first?.count ?? 0
    }

    /// Writes as much as `fd` takes without blocking.
    mutating func write(to fd: Int32) -> Outcome {
        while first < chunks.count {
            let sent = chunks[first].withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .blocked : .failed
            }
            count -= sent
            offset += sent
            if offset == chunks[first].count {
                chunks[first] = []
                first += 1
                offset = 0
                if first >= 32, first * 2 >= chunks.count {
                    chunks.removeFirst(first)
                    first = 0
                }
            }
        }
        chunks = []
        first = 0
        return .drained
    }
}
