import Foundation
import JSON
import Schema

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

    enum Report: Equatable {
        /// `{"type":"ack","msg_id"}`, or several at once in `msg_ids` (a backlog in one frame).
        case ack(msgIDs: [String])
        case page(entering: Bool, page: String)
        case inapp(clicked: Bool, msgID: String)
        case authorization(String)
    }

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
        default:
            throw .invalid("type must be ack, page, inapp or authorization")
        }
    }

    private static func msgID(_ fields: JSONObject) throws(CommandError) -> String {
        guard let msgID = fields["msg_id"]?.string, !msgID.isEmpty, msgID.utf8.count <= 64 else { throw .invalid("msg_id is missing") }
        return msgID
    }
}
