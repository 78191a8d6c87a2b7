import Foundation
import Schema
import WebSocket

/// One device connection as its channel process sees it: where it is in the hello, and once open,
/// which device it is and which mailbox entries it has been sent.
struct LiveConnectionState {
    enum Stage: Equatable {
        /// Waiting for frame 1 of the hello.
        case hello
        /// Frame 1 came: waiting for its proof.
        case proof(payload: String)
        /// The hello checked out here; its shard has not answered yet.
        case attaching(Hello)
        /// Welcomed: messages flow.
        case open(Hello)
    }

    var stage: Stage = .hello
    let openedAt: Double
    /// Mailbox entries sent on this connection and not yet acknowledged, so a message that comes both
    /// in the attach answer and from a delivery is sent once. Only the newest `Mailbox.limit` (by
    /// seq) are needed: the device's shard acknowledges older ones itself, so they never come again.
    /// Past half as many more, the older ones are forgotten together, so a device that never
    /// acknowledges costs at most that (some 30 bytes an entry), not a record of all it was ever sent.
    var sent: [Int64: String] = [:]
    /// Entries that came while the shard's attach answer was on its way, sent after it.
    var held: [LiveEntry] = []
    /// The connection closed while attaching: tell the shard once its answer comes.
    var closedWhileAttaching = false
    /// The shard's backlog for the device goes on after msg_id `backlogEnd`: ask for the next part
    /// once everything sent is acknowledged (nil: nothing more, or asked already).
    var backlogEnd: String?

    /// Reports (pages, in-app shows and clicks, authorization) a connection may send per second,
    /// sustained; bursts of twice that pass.
    static let reportsPerSecond = 5.0
    private var reports: FrameBudget

    init(openedAt: Double) {
        self.openedAt = openedAt
        reports = FrameBudget(burst: 2 * Self.reportsPerSecond, now: openedAt)
    }

    /// Device commands a connection may relay a second (`{"type":"request"}`), and twice that at once:
    /// below the frame limit (`--frames-per-second`, 20 and bursts of 40 by default, which counts the
    /// hello), so a device that sends too many is answered 6011 before its connection is closed.
    static let requestsPerSecond = 10.0
    private var requests: FrameBudget?

    /// Takes one request's token at `now`; false when the connection sends requests too fast.
    mutating func takeRequest(now: Double) -> Bool {
        if requests == nil { requests = FrameBudget(burst: 2 * Self.requestsPerSecond, now: now) }
        return requests!.take(now: now, rate: Self.requestsPerSecond, burst: 2 * Self.requestsPerSecond)
    }

    /// Takes one report's token at `now`; false when the connection sends reports too fast.
    mutating func takeReport(now: Double) -> Bool {
        reports.take(now: now, rate: Self.reportsPerSecond, burst: 2 * Self.reportsPerSecond)
    }

    var hello: Hello? {
        switch stage {
        case .attaching(let hello), .open(let hello): hello
        default: nil
        }
    }

    /// The entries of `entries` not sent yet, in msg_id order, now counted as sent.
    mutating func unsent(_ entries: [LiveEntry]) -> [LiveEntry] {
        var fresh: [LiveEntry] = []
        for entry in entries.sorted(by: { $0.precedes($1) }) where sent[entry.seq] == nil {
            sent[entry.seq] = entry.msgID
            fresh.append(entry)
        }
        if sent.count > Mailbox.limit * 3 / 2 {
            let oldestKept = sent.keys.sorted()[sent.count - Mailbox.limit]
            sent = sent.filter { $0.key >= oldestKept }
        }
        return fresh
    }

    /// The device acknowledged `msgIDs`: they leave the sent set.
    mutating func acknowledged(_ msgIDs: [String]) {
        let acked = Set(msgIDs)
        sent = sent.filter { !acked.contains($0.value) }
    }
}
