import Foundation

/// One request inside the loop, from intake to its response: waiting in its origin's queue, then a
/// stream on one connection (maybe on several in turn, when one refuses it), then ended. Loop-owned.
final class Exchange {
    let batch: Batch
    let index: Int
    let request: HTTP2Request
    let lane: String
    /// Where the path starts in the URL's UTF-8.
    let pathStart: Int
    /// `.notSent` once this passes without the request written.
    let sendDeadline: Double

    /// The connection and stream carrying it now; nil and 0 while it waits.
    var connection: Connection?
    var streamID: Int32 = 0
    /// The connection's output offset at which its HEADERS frame may start; -1 until serialized.
    var headerOffset = -1
    var streamDeadline = 0.0
    var bodySent = 0
    var status = 0
    var headers: [String: String] = [:]
    var body = Data()
    /// The final response has ended (END_STREAM after a status of 200 or more).
    var complete = false
    private(set) var ended = false

    init(batch: Batch, index: Int, request: HTTP2Request, lane: String, pathStart: Int, sendDeadline: Double) {
        self.batch = batch
        self.index = index
        self.request = request
        self.lane = lane
        self.pathStart = pathStart
        self.sendDeadline = sendDeadline
    }

    /// Whether any of its HEADERS frame may have reached the socket, so the server may have it.
    var isWritten: Bool {
        guard let connection, headerOffset >= 0 else { return false }
        return connection.written > headerOffset
    }

    /// Off its stream and back to waiting: what it had received is dropped.
    func detach() {
        connection = nil
        streamID = 0
        headerOffset = -1
        bodySent = 0
        status = 0
        headers = [:]
        body = Data()
        complete = false
    }

    func end(_ response: HTTP2Response) {
        guard !ended else { return }
        ended = true
        connection = nil
        batch.finish(index, response)
    }

    func end(_ failure: HTTP2Failure) { end(.failed(failure)) }

    func endAnswered() { end(HTTP2Response(status: status, headers: headers, body: body)) }

    /// Copies up to `length` bytes of the body not yet sent into `buffer`; returns how many.
    func readBody(into buffer: UnsafeMutablePointer<UInt8>, _ length: Int) -> Int {
        let count = min(length, request.body.count - bodySent)
        guard count > 0 else { return 0 }
        request.body.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + bodySent, byteCount: count)
        }
        bodySent += count
        return count
    }

    var bodyDone: Bool { bodySent >= request.body.count }
}
