import Caches
import Synchronization

/// The messages the fan-out has read, decoded once for the process. An expander puts each message
/// it expands (it has just decoded its plan), and the sending half's builder finds it there rather
/// than reading the row and decoding the plan a second time: with a message per fired local
/// notification, that second read was a quarter of the sending thread's work through a burst. A
/// stored plan never changes, so a copy is never stale; the builder reads what it does not find.
public final class MessageCache: Sendable {
    private let messages = Mutex(StartOverCache<Int64, NotificationBuilder.Message>(limit: 16_384))

    public init() {}

    subscript(id: Int64) -> NotificationBuilder.Message? { messages.withLock { $0[id] } }

    func keep(_ message: NotificationBuilder.Message, id: Int64) {
        _ = messages.withLock { $0.insert(message, forKey: id) }
    }
}
