import Glibc

/// When each connection's current request began, so one that trickles its head or body past the
/// request deadline is cut (the idle timeout alone restarts on every byte). Owned by the server's
/// thread, where every libmicrohttpd callback runs.
struct ConnectionClock {
    enum Phase {
        /// Waiting for a request, or receiving one: the deadline runs.
        case receiving
        /// The request is whole and being answered: the handler's time is not the client's.
        case answering
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

    /// Shuts down every connection whose request began more than `deadline` seconds before `now`.
    /// The descriptor is still libmicrohttpd's (it closes a socket only after telling us, in
    /// `closed`), so the shutdown can only reach this connection; libmicrohttpd then sees the end
    /// of the stream and closes it itself.
    mutating func cutOverdue(now: Double, deadline: Double) {
        for (connection, entry) in entries where entry.phase == .receiving && now - entry.since > deadline {
            shutdown(entry.fd, Int32(SHUT_RDWR))
            entries[connection]?.phase = .cut
            cut += 1
        }
    }
}
