import Foundation

/// The device channel while the app is in the foreground (DESIGN.md, "The device channel"): a
/// thread of its own holds one WebSocket, says the signed hello, hands each message to the app on
/// the callback queue and acknowledges it once the handler returned, and connects again with backoff
/// and jitter when the connection drops. The close codes decide: 4401 (a bad proof) and 4410 (the
/// device was deleted) stop it, 4001 (another connection of this device replaced it) stops it
/// without a fight, 4503 (its shard is away) waits longer, anything else tries again. A msg_id the
/// app was handed is remembered (in the device's state, across launches), so the app never gets
/// it twice, even when the server sends it again because the acknowledgement was lost.
final class LiveChannel {
    enum Stop: Equatable {
        case requested, replaced, refused(UInt16), deleted
    }

    private let url: URL
    private let makeConnection: () throws -> ChannelConnection
    private let hello: () -> (payload: String, proof: String)?
    private let deliver: ([String: Any]) -> Void
    private let seen: (String) -> Bool
    private let remember: (String) -> Void
    private let stopped: (Stop) -> Void
    private let lock = NSLock()
    private var running = true
    private var connection: ChannelConnection?
    private var thread: Thread?
    /// Connections made so far (each reconnect counts), and whether one is welcomed now.
    private(set) var connections = 0
    private(set) var isOpen = false
    /// Messages the server sent again that the app had been handed already: acknowledged, not handed over.
    private(set) var repeats = 0
    var retryMin = 0.5
    var retryMax = 30.0

    init(url: URL, makeConnection: @escaping () throws -> ChannelConnection, hello: @escaping () -> (payload: String, proof: String)?,
         deliver: @escaping ([String: Any]) -> Void, seen: @escaping (String) -> Bool, remember: @escaping (String) -> Void,
         stopped: @escaping (Stop) -> Void) {
        self.url = url
        self.makeConnection = makeConnection
        self.hello = hello
        self.deliver = deliver
        self.seen = seen
        self.remember = remember
        self.stopped = stopped
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "pushbus-channel"
        self.thread = thread
        thread.start()
    }

    /// Ends the thread: its connection is interrupted here (under the lock, so it cannot be closed
    /// meanwhile) and closed by the thread itself.
    func stop() {
        lock.withLock {
            running = false
            connection?.interrupt()
        }
    }

    private var isRunning: Bool { lock.withLock { running } }

    private func run() {
        var delay = retryMin
        while isRunning {
            var wait = delay
            do {
                try session()
                delay = retryMin
                wait = retryMin
            } catch let closed as ChannelClosed {
                lock.withLock { isOpen = false }
                switch closed.code {
                case 4410: return finish(.deleted)
                case 4401, 4400, 4409: return finish(.refused(closed.code))
                case 4001: return finish(.replaced)
                case 4503: wait = max(delay, 5)
                default: break
                }
            } catch {
                lock.withLock { isOpen = false }
            }
            guard isRunning else { break }
            Thread.sleep(forTimeInterval: wait * Double.random(in: 0.75...1.25))
            delay = min(retryMax, delay * 2)
        }
        finish(.requested)
    }

    private func finish(_ stop: Stop) {
        lock.withLock { running = false }
        stopped(stop)
    }

    /// One connection: hello, welcome, then messages until it ends (by throwing).
    private func session() throws {
        guard let hello = hello() else { throw ChannelClosed(code: 4410, reason: "no registration") }
        let connection = try makeConnection()
        let keep: Bool = lock.withLock {
            guard running else { return false }
            self.connection = connection
            connections += 1
            return true
        }
        guard keep else { return connection.close(1000) }
        defer {
            lock.withLock { self.connection = nil }
            connection.close(isRunning ? 1001 : 1000)
        }
        try connection.send(hello.payload)
        try connection.send(hello.proof)
        while true {
            guard let text = try connection.receive() else { continue }
            guard let frame = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { continue }
            switch frame["type"] as? String {
            case "welcome":
                lock.withLock { isOpen = true }
            case "message":
                guard let msgID = frame["msg_id"] as? String else { continue }
                if seen(msgID) {
                    lock.withLock { repeats += 1 }
                } else {
                    deliver(frame)
                    remember(msgID)
                }
                let ack = try JSONSerialization.data(withJSONObject: ["type": "ack", "msg_id": msgID], options: [.sortedKeys])
                try connection.send(String(decoding: ack, as: UTF8.self))
            default:
                continue
            }
        }
    }
}
