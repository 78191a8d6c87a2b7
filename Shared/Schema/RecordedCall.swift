import Foundation
import JSON

/// One line of a recording (JSON Lines, one object per line), as the gateway's `--record` writes
/// it and `pushbus-replay` reads and generates it:
///
///     {"t":12.5,"service":"device","command":"tags.add","payload":{…},"reply":{…}}
///
/// `t` is milliseconds since the recording started (when the request arrived), `service` the MDP
/// service the client addressed, `command` and `payload` the request body, and `reply` what the
/// client got back (absent in generated recordings, where the replies are not known yet).
public struct RecordedCall: Codable, Equatable, Sendable {
    public var t: Double
    public var service: String
    public var command: String
    public var payload: JSONValue
    public var reply: JSONValue?

    public init(t: Double, service: String = "device", command: String, payload: JSONValue, reply: JSONValue? = nil) {
        self.t = t
        self.service = service
        self.command = command
        self.payload = payload
        self.reply = reply
    }

    /// The line as written: compact JSON, keys in a fixed order, no trailing newline.
    public var line: Data { WireCodec.encode(self) }

    /// Parses one line; throws on anything that is not a recorded call.
    public init(line: Data) throws {
        self = try JSONTreeDecoder().decode(RecordedCall.self, from: line)
    }
}
