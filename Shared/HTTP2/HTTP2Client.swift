import Foundation
import Glibc
import Synchronization
import Threads

/// An HTTP/2 client on libnghttp2 and OpenSSL: requests to any number of origins, each origin a
/// small pool of connections carrying many streams at once. One loop thread ("http2-loop") owns
/// every socket, TLS and nghttp2 session and runs every completion; callers reach it only through
/// a inbox (a locked list and an eventfd), so the client itself is shared freely.
///
/// A request ends with an HTTP answer, or with an `HTTP2Failure` saying whether the server may
/// have acted on it (`.lost`) or certainly not (`.notSent`); what is certainly not sent (REFUSED_STREAM,
/// above a GOAWAY's last-stream-id, unwritten on a connection that died) goes again by itself
/// until `sendTimeout`.
public final class HTTP2Client: Sendable {
    private let inbox: Inbox<LoopCommand>
    private let counterBox: CounterBox
    private let thread = LoopThread()

    /// Starts the loop thread. Throws `HTTP2Error.setup` when it cannot set up (no eventfd or epoll,
    /// OpenSSL refused, the CA file unreadable); no thread is left running then.
    public init(options: HTTP2Options = HTTP2Options()) throws(HTTP2Error) {
        var bounded = options
        bounded.maxConnections = max(1, options.maxConnections)
        bounded.maxStreams = max(1, options.maxStreams)
        bounded.receiveWindow = min(max(65_535, options.receiveWindow), Int(Int32.max))
        let options = bounded
        let inbox = Inbox<LoopCommand>()
        let counters = CounterBox()
        self.inbox = inbox
        counterBox = counters
        let thread = self.thread
        NamedThread.start("http2-loop") {
            thread.started()
            let loop: EventLoop
            do throws(HTTP2Error) {
                loop = try EventLoop(inbox: inbox, options: options, counters: counters)
            } catch {
                thread.ready(error)
                thread.ended()
                return
            }
            thread.ready(nil)
            loop.run()
            thread.ended()
        }
        if let error = thread.waitUntilReady() {
            _ = inbox.close()
            throw error
        }
    }

    deinit { stop() }

    /// Queues `requests` in `lane` (an app, say) and returns at once. `completion` runs on the loop
    /// thread once every request of this call has ended, with one response per request in the
    /// same order; it is called exactly once, and must not block for long (it holds up the loop).
    /// After `stop()`, it runs at once on the caller's thread with every request `.notSent`.
    public func send(_ requests: [HTTP2Request], lane: String, completion: @escaping @Sendable ([HTTP2Response]) -> Void) {
        guard inbox.post(.send(Submission(requests: requests, lane: lane, completion: completion))) else {
            return completion(requests.map { _ in .failed(.notSent("the client stopped")) })
        }
    }

    /// `send`, then blocks the calling thread until the call's completion, running `meanwhile`
    /// about every tenth of a second (a worker's heartbeat). Never call it on the loop thread
    /// (from a completion): it would wait for itself.
    public func sendAndWait(_ requests: [HTTP2Request], lane: String, meanwhile: () -> Void = {}) -> [HTTP2Response] {
        precondition(!onLoopThread, "sendAndWait from the client's own loop thread would never return")
        let done = DispatchSemaphore(value: 0)
        let answer = Mutex<[HTTP2Response]>([])
        send(requests, lane: lane) { responses in
            answer.withLock { $0 = responses }
            done.signal()
        }
        while done.wait(timeout: .now() + 0.1) == .timedOut { meanwhile() }
        return answer.withLock { $0 }
    }

    /// Stops the loop: calls not yet ended complete (written streams `.lost`, the rest `.notSent`),
    /// connections close, and the thread is joined. Safe to call twice, and from a completion (then
    /// it returns at once and the loop ends after the completion returns).
    public func stop() {
        inbox.post(.stop)
        guard !onLoopThread else { return }
        thread.join()
    }

    /// What the client has done so far (connections, PINGs, GOAWAYs, resets, retries).
    public var counters: HTTP2Counters { counterBox.current }

    private var onLoopThread: Bool { thread.isCurrent }
}
