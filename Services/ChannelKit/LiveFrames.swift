import Credentials
import Foundation
import JSON
import Schema
import Signing

/// The JSON text frames of the device channel after the hello (DESIGN.md, "The device channel"):
/// what the server sends, and the reports a device sends back.
enum LiveFrames {
    /// `{"type":"message","msg_id","kind"}` with the message's own fields beside them.
    static func message(_ entry: LiveEntry) -> String {
        var fields: JSONObject
        if case .object(let content) = entry.content { fields = content } else { fields = JSONObject() }
        fields["type"] = .string("message")
        fields["msg_id"] = .string(entry.msgID)
        fields["kind"] = .string(entry.kind.rawValue)
        return String(decoding: WireCodec.encode(JSONValue.object(fields)), as: UTF8.self)
    }

    /// A report the server could not take; the connection stays open.
    static func error(_ message: String) -> String {
        String(decoding: WireCodec.encode(JSONValue.object(["type": .string("error"), "code": .number(Double(ResultCode.invalidRequest.rawValue)),
                                                            "message": .string(message)])), as: UTF8.self)
    }

    /// `{"type":"reply","id"}` with the bus reply's fields beside them; 6002 when no reply came.
    static func reply(id: Int64, _ reply: Data?) -> String {
        var fields: JSONObject
        if let reply, case .object(let answer)? = try? JSONTreeDecoder().decode(JSONValue.self, from: reply) {
            fields = answer
        } else {
            fields = JSONObject()
            fields["code"] = .number(Double(ResultCode.timeout.rawValue))
            fields["message"] = .string("the backend did not answer in time, retry")
        }
        fields["type"] = .string("reply")
        fields["id"] = .number(Double(id))
        return String(decoding: WireCodec.encode(JSONValue.object(fields)), as: UTF8.self)
    }

    /// A request frame the server could not take, answered with its id when it had one.
    static func refusedRequest(id: Int64, _ error: CommandError) -> String {
        reply(id: id, WireCodec.errorReply(error))
    }

    enum Report: Equatable {
        /// `{"type":"ack","msg_id"}`, or several at once in `msg_ids` (a backlog in one frame).
        case ack(msgIDs: [String])
        case page(entering: Bool, page: String)
        case inapp(clicked: Bool, msgID: String)
        case authorization(String)
        /// `{"type":"request","id","command","payload","proof"}`: a device command as the device
        /// edge takes it, the payload the JSON text that was signed.
        case request(id: Int64, command: Command, payload: String, proof: String)
        /// A request frame with an id but something else wrong: answered with the error and that id.
        case badRequest(id: Int64, CommandError)
    }

    /// Largest payload a request frame carries (the device edge's default body limit).
    static let maxRequestPayloadBytes = 64 << 10

    static let authorizations: Set<String> = ["granted", "denied", "provisional"]

    /// Reads one device frame; throws with what is wrong.
    static func report(_ text: String) throws(CommandError) -> Report {
        guard case .object(let fields)? = try? JSONTreeDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw .invalid("a frame is a JSON object with a type")
        }
        switch fields["type"]?.string {
        case "ack":
            if case .array(let items)? = fields["msg_ids"] {
                let ids = items.compactMap(\.string).filter { !$0.isEmpty && $0.utf8.count <= 64 }
                guard !ids.isEmpty, ids.count == items.count, ids.count <= 1000 else { throw .invalid("msg_ids must be 1...1000 msg_ids") }
                return .ack(msgIDs: ids)
            }
            return .ack(msgIDs: [try msgID(fields)])
        case "page":
            guard let page = fields["page"]?.string, !page.isEmpty, page.utf8.count <= 256, !Validate.hasControlCharacter(page) else {
                throw .invalid("page must name the page (at most 256 bytes, no control character)")
            }
            switch fields["event"]?.string {
            case "enter": return .page(entering: true, page: page)
            case "leave": return .page(entering: false, page: page)
            default: throw .invalid(#"a page report's event is "enter" or "leave""#)
            }
        case "inapp":
            switch fields["event"]?.string {
            case "show": return .inapp(clicked: false, msgID: try msgID(fields))
            case "click": return .inapp(clicked: true, msgID: try msgID(fields))
            default: throw .invalid(#"an inapp report's event is "show" or "click""#)
            }
        case "authorization":
            guard let status = fields["status"]?.string, authorizations.contains(status) else {
                throw .invalid("authorization status is granted, denied or provisional")
            }
            return .authorization(status)
        case "request":
            return try request(fields)
        default:
            throw .invalid("type must be ack, page, inapp, authorization or request")
        }
    }

    /// A request frame's parts, or what is wrong with them; throws only when the id cannot be read
    /// (nothing to answer it by).
    private static func request(_ fields: JSONObject) throws(CommandError) -> Report {
        guard let number = fields["id"]?.number, number == number.rounded(), abs(number) <= 9_007_199_254_740_991 else {
            throw .invalid("a request's id is a whole number")
        }
        let id = Int64(number)
        guard let name = fields["command"]?.string, let command = Command(rawValue: name), SigningPolicy.isDeviceCommand(command) else {
            return .badRequest(id: id, .invalid("no such device command"))
        }
        guard let payload = fields["payload"]?.string, payload.utf8.count <= maxRequestPayloadBytes,
              case .object? = try? JSONTreeDecoder().decode(JSONValue.self, from: Data(payload.utf8)) else {
            return .badRequest(id: id, .invalid("payload is the JSON text of one object, at most \(maxRequestPayloadBytes) bytes"))
        }
        guard let proof = fields["proof"]?.string, Proof.looksLikeDeviceFrame(proof) else {
            return .badRequest(id: id, CommandError(.appKeyInvalid, "a request on the channel carries its proof (v1 device:<registration_id> <hex HMAC>)"))
        }
        return .request(id: id, command: command, payload: payload, proof: proof)
    }

    private static func msgID(_ fields: JSONObject) throws(CommandError) -> String {
        guard let msgID = fields["msg_id"]?.string, !msgID.isEmpty, msgID.utf8.count <= 64 else { throw .invalid("msg_id is missing") }
        return msgID
    }
}
