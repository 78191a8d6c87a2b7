import Glibc

/// A connection's outgoing frames, whole and in order, written as the socket takes them. A frame
/// goes straight to the socket when nothing is queued before it; only what the socket does not take
/// is kept, in a ring of `capacity` bytes mapped from the system (mmap) the first time it is needed
/// and unmapped by `release()` once drained, or when the queue ends. So a queue holds at most
/// `capacity` (a whole number of pages), nothing while idle, and what it held goes back to the system
/// at once: none of it passes through the heap, where freed memory stays with the allocator
/// (tcmalloc keeps it) and where a queue's many small blocks used to cost up to twice the bytes they
/// held. Owned by the loop thread.
struct OutboundQueue: ~Copyable {
    /// What a write attempt came to.
    enum Outcome {
        case drained
        case blocked
        /// The socket failed, or the frame found no room (the caller's limits let none past `capacity`).
        case failed
    }

    /// Bytes the ring holds: what the caller allows a connection to queue (`room`) rounded up to
    /// whole pages.
    let capacity: Int
    private var ring: UnsafeMutableRawPointer?
    /// Where the oldest unsent byte is in the ring.
    private var head = 0
    /// Bytes queued and not yet written.
    private(set) var count = 0
    /// Unsent bytes of the frame being written: 0 when `head` is at the start of a frame. Frames
    /// are as the server writes them (unmasked), so where the next one ends is read from its header.
    private var rest = 0

    init(room: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        capacity = max(page, (room + page - 1) / page * page)
    }

    deinit {
        if let ring { munmap(ring, capacity) }
    }

    var isEmpty: Bool { count == 0 }

    /// Whether the ring is mapped (it holds memory).
    var isMapped: Bool { ring != nil }

    /// Writes `frame` (one whole frame) after what is queued: straight to `fd` when nothing is,
    /// and whatever the socket does not take is queued. `.failed` when the socket fails, or when the
    /// frame does not fit in what is left of the ring or no ring can be mapped.
    mutating func send(_ frame: [UInt8], to fd: Int32) -> Outcome {
        guard !frame.isEmpty else { return count == 0 ? .drained : .blocked }
        guard count == 0 else {
            guard append(frame, from: 0) else { return .failed }
            return write(to: fd)
        }
        var sent = 0
        while sent < frame.count {
            let done = frame.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if done < 0 {
                if errno == EINTR { continue }
                guard errno == EAGAIN || errno == EWOULDBLOCK else { return .failed }
                break
            }
            sent += done
        }
        guard sent < frame.count else { return .drained }
        guard append(frame, from: sent) else { return .failed }
        rest = sent > 0 ? count : 0
        return .blocked
    }

    /// Drops every frame not yet begun, keeping the rest of the one half written so the peer never
    /// sees a torn frame.
    mutating func dropUnstarted() {
        precondition(rest <= count, "a frame's rest is queued")
        count = rest
        if count == 0 { head = 0 }
    }

    /// Writes as much as `fd` takes without blocking.
    mutating func write(to fd: Int32) -> Outcome {
        while count > 0, let ring {
            let first = min(count, capacity - head)
            let sent = withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { parts in
                parts[0] = iovec(iov_base: ring + head, iov_len: first)
                parts[1] = iovec(iov_base: ring, iov_len: count - first)
                var message = msghdr()
                message.msg_iov = parts.baseAddress
                message.msg_iovlen = first < count ? 2 : 1
                return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .blocked : .failed
            }
            consumed(sent)
        }
        return .drained
    }

    /// Gives the ring back to the system when nothing is queued; the next frame that waits maps a
    /// new one. The loop calls it from its timers, not per frame, so a busy connection keeps its ring.
    mutating func release() {
        guard count == 0, let ring else { return }
        munmap(ring, capacity)
        self.ring = nil
        head = 0
        rest = 0
    }

    /// Copies `frame[from...]` in after what is queued; false when it does not fit or no ring can be mapped.
    private mutating func append(_ frame: [UInt8], from start: Int) -> Bool {
        let size = frame.count - start
        guard count + size <= capacity, let ring = mapped() else { return false }
        let tail = (head + count) % capacity
        let first = min(size, capacity - tail)
        frame.withUnsafeBytes { bytes in
            (ring + tail).copyMemory(from: bytes.baseAddress! + start, byteCount: first)
            if first < size { ring.copyMemory(from: bytes.baseAddress! + start + first, byteCount: size - first) }
        }
        count += size
        return true
    }

    private mutating func mapped() -> UnsafeMutableRawPointer? {
        if let ring { return ring }
        let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        ring = address
        head = 0
        return address
    }

    /// `sent` bytes went out from the head: moves past them, and past the headers of the frames
    /// they finished, to know where the frame now being written ends.
    private mutating func consumed(_ sent: Int) {
        var left = sent
        var start = head
        while left > rest {
            left -= rest
            start = (start + rest) % capacity
            rest = frameLength(at: start)
        }
        rest -= left
        count -= sent
        head = count == 0 ? 0 : (head + sent) % capacity
    }

    /// The length, header included, of the frame that starts at `start` in the ring.
    private func frameLength(at start: Int) -> Int {
        let length = Int(byte(start + 1) & 0x7F)
        switch length {
        case 126:
            return 4 + (Int(byte(start + 2)) << 8 | Int(byte(start + 3)))
        case 127:
            var long = 0
            for index in 2..<10 { long = long << 8 | Int(byte(start + index)) }
            return 10 + long
        default:
            return 2 + length
        }
    }

    private func byte(_ offset: Int) -> UInt8 {
        ring!.load(fromByteOffset: offset % capacity, as: UInt8.self)
    }
}
