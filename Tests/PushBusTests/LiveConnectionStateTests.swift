import JSON
import Schema
import Testing
@testable import ChannelKit

/// What one connection remembers of the messages it was sent: enough to send each once, never more
/// than its shard could send again.
@Suite struct LiveConnectionStateTests {
    private func entry(_ seq: Int64) -> LiveEntry {
        LiveEntry(seq: seq, msgID: String(seq), kind: .message, content: .object(["msg_content": .string("m\(seq)")]))
    }

    @Test func anEntryIsSentOnceUntilAcknowledged() {
        var state = LiveConnectionState(openedAt: 0)
        #expect(state.unsent([entry(2), entry(1)]).map(\.seq) == [1, 2], "in msg_id order")
        #expect(state.unsent([entry(1), entry(3)]).map(\.seq) == [3])
        state.acknowledged(["1", "3"])
        #expect(state.sent == [2: "2"])
    }

    /// Its shard holds at most `Mailbox.limit` unacknowledged messages for a device and acknowledges
    /// older ones itself, so only the newest that many can come again.
    @Test func aDeviceThatNeverAcknowledgesIsRememberedForItsNewestMessagesOnly() {
        var state = LiveConnectionState(openedAt: 0)
        var sent = 0
        var largest = 0
        for seq in 1...Int64(5 * Mailbox.limit) {
            sent += state.unsent([entry(seq)]).count
            largest = max(largest, state.sent.count)
        }
        #expect(sent == 5 * Mailbox.limit)
        #expect(largest <= Mailbox.limit * 3 / 2)
        let newest = Int64(5 * Mailbox.limit)
        #expect(state.sent.count >= Mailbox.limit)
        #expect(state.unsent(((newest - Int64(Mailbox.limit) + 1)...newest).map(entry)).isEmpty, "the newest are still sent once")
    }
}
