import JSON
import Schema

/// JPush v3's push body in EngageLab's terms, which the push service takes: `audience` is `to`;
/// `platform`, the kinds of `PushContent.kinds` and `options` go into `body`;
/// the top-level `cid` joins the options. A field the push service checks is passed on as it came,
/// so a wrong one is refused there with its code.
enum JPushPayload {
    static func engageLab(_ v3: JSONObject) -> JSONObject {
        var body: [String: JSONValue] = [:]
        for key in ["platform"] + PushContent.kinds { body[key] = v3[key] }
        var options: [String: JSONValue] = [:]
        if case .object(let given)? = v3["options"] { options = given.dictionary }
        if let cid = v3["cid"] { options["cid"] = cid }
        options["sendno"] = nil
        if !options.isEmpty { body["options"] = .object(options) }
        var push: [String: JSONValue] = ["body": .object(body)]
        push["to"] = v3["audience"]
        return JSONObject(push)
    }

    /// `sendno` as the request gave it in `options` ("0" when none), for the reply.
    static func sendno(_ v3: JSONObject) -> JSONValue {
        guard case .object(let options)? = v3["options"], let sendno = options["sendno"] else { return .string("0") }
        if let number = sendno.number { return .string(String(Int(number))) }
        return sendno
    }
}
