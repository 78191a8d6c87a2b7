import Foundation
import JSON
import Schema

/// Writes every device command the gateway answers, with its reply, as JSON lines in the format
/// `pushbus-replay` reads (`RecordedCall`). Lines are buffered and flushed when the buffer fills,
/// on the broker's heartbeat tick and at close. Owned by the broker's thread. When the gateway runs
/// without `--record` there is no recorder at all, so recording costs nothing then.
final class Recorder {
    private let file: FileHandle
    private let start: Int64
    private var buffer = Data()
    static let flushBytes = 64 * 1024

    /// Creates (or truncates) `path`. `start` is the monotonic millisecond that counts as t = 0.
    init(path: String, start: Int64) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw GatewayError.recordFile(path: path)
        }
        self.file = file
        self.start = start
    }

    /// Records one request (`body` = command, payload) that arrived at `arrivedAt` and the reply it got.
    /// Internal traffic (a worker's `events.fetch`) is not a device command and is not recorded.
    func record(arrivedAt: Int64, service: String, body: [Data], reply: [Data]) {
        let command = body.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard Command(rawValue: command) != nil || service == "device" else { return }
        let call = RecordedCall(t: Double(arrivedAt - start), service: service, command: command,
                                payload: body.count > 1 ? Self.json(body[1]) : .object([:]),
                                reply: reply.first.map(Self.json))
        buffer.append(call.line)
        buffer.append(0x0A)
        if buffer.count >= Self.flushBytes { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        file.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    func close() {
        flush()
        try? file.close()
    }

    /// The frame as JSON when it is JSON, else as a string, so a malformed request is kept as sent.
    private static func json(_ frame: Data) -> JSONValue {
        (try? JSONTreeDecoder().decode(JSONValue.self, from: frame)) ?? .string(String(decoding: frame, as: UTF8.self))
    }
}
