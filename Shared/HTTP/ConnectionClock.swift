import Glibc

/// When each connection's current request began, so one that trickles its head or body past the
/// request deadline is cut, and when its answer was queued, so one that reads its answer too slowly
/// is cut at the response deadline (the idle timeout alone restarts on every byte, either way).
/// Owned by the server's thread, where every libmicrohttpd callback runs.
struct ConnectionClock {
    enum Phase {
        /// Waiting for a request, or receiving one: the deadline runs.
        case receiving
        /// The request is whole and being answered: the handler's time is not the client's.
        case answering
        /// The answer is queued and being written: the response deadline runs, the client's to keep
        /// by reading.
        case sending
        /// Upgraded (a WebSocket): no longer HTTP.
        case upgraded
        /// Shut down by the deadline; libmicrohttpd closes it.
        case cut
    }

    private struct Entry {
        let fd: Int32
        var since: Double
        var phase: Phase
    }

    private var entries: [UInt: Entry] = [:]
    /// Connections cut so far.
    private(set) var cut = 0

    var count: Int { entries.count }

    mutating func opened(_ connection: UInt, fd: Int32, now: Double) { entries[connection] = Entry(fd: fd, since: now, phase: .receiving) }

    mutating func set(_ connection: UInt, _ phase: Phase, now: Double) {
        guard entries[connection] != nil, entries[connection]?.phase != .cut else { return }
        entries[connection]?.phase = phase
        entries[connection]?.since = now
    }

    mutating func closed(_ connection: UInt) { entries[connection] = nil }

    /// Shuts down every connection whose request began more than `deadline` seconds before `now`,
    /// or whose answer was queued more than `responseDeadline` before. The descriptor is still
    /// libmicrohttpd's (it closes a socket only after telling us, in `closed`), so the shutdown can
    /// only reach this connection; libmicrohttpd then sees the end of the stream and closes it itself.
    mutating func cutOverdue(now: Double, deadline: Double, responseDeadline: Double) {
        for (connection, entry) in entries {
            switch entry.phase {
            case .receiving: guard now - entry.since > deadline else { continue }
            case .sending: guard now - entry.since > responseDeadline else { continue }
            case .answering, .upgraded, .cut: continue
            }
            // Abortive: when libmicrohttpd closes the socket, the kernel resets it and drops what
            // the send buffer still holds, rather than trickle megabytes more to a slow reader.
            var abort = linger(l_onoff: 1, l_linger: 0)
            setsockopt(entry.fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
            shutdown(entry.fd, Int32(SHUT_RDWR))
            entries[connection]?.phase = .cut
            cut += 1
        }
    }
}
