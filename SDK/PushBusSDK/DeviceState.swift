import Foundation

/// What the SDK keeps across launches: the install's stable id, the registration and its secret,
/// and the APNs token last registered. One JSON file, mode 0600, in the state directory (the
/// Keychain is the place on Apple platforms; the file keeps the SDK testable on Linux).
struct DeviceState: Codable, Equatable {
    var deviceID: String
    var registrationID: String?
    var deviceSecret: String?
    var apnsToken: String?
    /// Set when the server said the device was deleted: the SDK stops and sends nothing more.
    var deleted = false
    /// The msg_ids of the live messages handed to the app, newest last, at most `seenLimit`: one
    /// that comes again (its acknowledgement was lost, the channel restarted) is acknowledged, not
    /// handed over twice.
    var seenMessages: [String] = []
    static let seenLimit = 1000
    /// TikPush's channel subscriptions, as the device last set them.
    var subscriptions: [Subscription] = []
    /// The MA EUID of the last start.
    var euid: String?
    /// Commands made but not yet answered, oldest first: sent again, in order, by the next launch
    /// when the app ended before the server answered them (offline, say).
    var journal: [JournalEntry] = []
    /// MA events recorded and not yet reported (each event's JSON), oldest first: reported by the
    /// next launch when this one ended first.
    var events: [Data] = []

    struct JournalEntry: Codable, Equatable {
        var id: String
        var command: String
        /// The command's fields as JSON text (the SDK adds app_key, registration_id, ts, nonce when sending).
        var fields: Data
    }

    init(deviceID: String) { self.deviceID = deviceID }

    enum CodingKeys: String, CodingKey { case deviceID, registrationID, deviceSecret, apnsToken, deleted, seenMessages, subscriptions, euid, journal, events }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deviceID = try container.decode(String.self, forKey: .deviceID)
        registrationID = try container.decodeIfPresent(String.self, forKey: .registrationID)
        deviceSecret = try container.decodeIfPresent(String.self, forKey: .deviceSecret)
        apnsToken = try container.decodeIfPresent(String.self, forKey: .apnsToken)
        deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        seenMessages = try container.decodeIfPresent([String].self, forKey: .seenMessages) ?? []
        subscriptions = try container.decodeIfPresent([Subscription].self, forKey: .subscriptions) ?? []
        euid = try container.decodeIfPresent(String.self, forKey: .euid)
        journal = try container.decodeIfPresent([JournalEntry].self, forKey: .journal) ?? []
        events = try container.decodeIfPresent([Data].self, forKey: .events) ?? []
    }

    static func load(from url: URL) -> DeviceState? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(DeviceState.self, from: data)
    }

    /// Writes the file whole (a temporary file renamed over it), readable by this user only.
    func save(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = url.appendingPathExtension("tmp")
        let data = try JSONEncoder().encode(self)
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw TransportError("cannot write \(temporary.path)")
        }
        guard rename(temporary.path, url.path) == 0 else { throw TransportError("cannot replace \(url.path)") }
    }
}
