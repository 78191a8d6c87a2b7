/// What the gateway reads of a request's JSON payload, decoded once per request and shared by the
/// proof check, the app rate limit and shard routing. `app_key`, `registration_id` and `ts` of the
/// wrong type make the request malformed (6017), but for `registration_id` as an array of strings,
/// which `audience.resolve` takes (the authenticator refuses it for any other command);
/// `euid` and `device_id` only steer routing.
struct PayloadKeys: Decodable {
    var appKey: String?
    var registrationID: String?
    /// `registration_id` was an array of strings: several devices, none to check a proof against.
    var registrationIDIsList = false
    var ts: Int64?
    var euid: String?
    var deviceID: String?
    var seq: Int?

    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", ts, euid, deviceID = "device_id", seq
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appKey = try c.decodeIfPresent(String.self, forKey: .appKey)
        do {
            registrationID = try c.decodeIfPresent(String.self, forKey: .registrationID)
        } catch {
            guard (try? c.decode([String].self, forKey: .registrationID)) != nil else { throw error }
            registrationIDIsList = true
        }
        ts = try c.decodeIfPresent(Int64.self, forKey: .ts)
        euid = try? c.decodeIfPresent(String.self, forKey: .euid)
        deviceID = try? c.decodeIfPresent(String.self, forKey: .deviceID)
        seq = try? c.decodeIfPresent(Int.self, forKey: .seq)
    }
}
