/// What the gateway reads of a request's JSON payload, decoded once per request and shared by the
/// proof check, the app rate limit and shard routing. `app_key` and `ts` of the wrong type make the
/// request malformed (6017); `euid` and `device_id` only steer routing. `registration_id` is one
/// device's ID for a device command but a list for `audience.resolve`, so another type is only
/// noted here; the Authenticator refuses it (6017) for commands that name one device.
struct PayloadKeys: Decodable {
    var appKey: String?
    var registrationID: String?
    /// `registration_id` is present and not a string (a list, say).
    var registrationIDIsNotString = false
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
        } catch DecodingError.typeMismatch {
            registrationIDIsNotString = true
        }
        ts = try c.decodeIfPresent(Int64.self, forKey: .ts)
        euid = try? c.decodeIfPresent(String.self, forKey: .euid)
        deviceID = try? c.decodeIfPresent(String.self, forKey: .deviceID)
        seq = try? c.decodeIfPresent(Int.self, forKey: .seq)
    }
}
