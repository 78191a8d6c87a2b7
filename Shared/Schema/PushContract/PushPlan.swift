import Foundation
import JSON

/// A push as checked and kept: whom it goes to, what they receive and how it is sent. Made from a
/// `push.send` payload (every check is here, so `push.validate` answers exactly as `push.send`
/// would) and stored with the message as JSON for the fan-out.
public struct PushPlan: Codable, Equatable, Sendable {
    public var target: PushTarget
    public var content: PushContent
    public var options: PushOptions

    /// The members a plan is stored with (`PushPlan+Fields` reads and writes them without the
    /// Decoder and Encoder).
    enum CodingKeys: String, CodingKey { case target, content, options }

    public init(_ send: PushSend, now: Date) throws(CommandError) {
        guard case .object(let body)? = send.body else { throw .missing("body is missing or not an object") }
        target = try PushTarget(send.to)
        content = try PushContent(send.body, now: now)
        options = try PushOptions(body["options"])
        if content.kind == .liveActivity, target.liveActivityID == nil {
            throw .missing("a live_activity push needs to.live_activity_id")
        }
        if target.liveActivityID != nil, content.kind != .liveActivity {
            throw .badField("to.live_activity_id goes with body.live_activity only")
        }
        try content.checkSize()
    }

    /// The request's `request_id` (at most 128 bytes, no control character) and `custom_args` (its size).
    public static func checkEcho(_ send: PushSend) throws(CommandError) {
        if let id = send.requestID, id.utf8.count > 128 { throw .badField("request_id is longer than 128 bytes") }
        if let id = send.requestID, Validate.hasControlCharacter(id) { throw .badField("request_id must not contain control characters") }
        if let args = send.customArgs, WireCodec.encode(args).count > 2048 { throw .badField("custom_args is larger than 2048 bytes") }
    }
}
