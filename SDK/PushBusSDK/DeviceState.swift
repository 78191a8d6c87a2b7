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
        // The credentials must read; what else is damaged is dropped rather than costing the registration.
        deleted = (try? container.decodeIfPresent(Bool.self, forKey: .deleted)) ?? false
        seenMessages = (try? container.decodeIfPresent([String].self, forKey: .seenMessages)) ?? []
        subscriptions = (try? container.decodeIfPresent([Subscription].self, forKey: .subscriptions)) ?? []
        euid = try? container.decodeIfPresent(String.self, forKey: .euid)
        journal = (try? container.decodeIfPresent([JournalEntry].self, forKey: .journal)) ?? []
        events = (try? container.decodeIfPresent([Data].self, forKey: .events)) ?? []
    }

    /// The state kept at `url`; nil when there is none. A file that does not read as a state (damaged,
    /// or not the SDK's) is moved aside, `<name>.unreadable-<time>`, and said on the log, never silently
    /// taken for a new install over it.
    static func load(from url: URL) throws -> DeviceState? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        if let state = try? JSONDecoder().decode(DeviceState.self, from: data) { return state.withKeychainSecret(url) }
        let aside = url.path + ".unreadable-\(Int(Date().timeIntervalSince1970))"
        guard rename(url.path, aside) == 0 else { throw TransportError("\(url.path) is unreadable and cannot be moved aside") }
        PushBusLog.say(.error, "\(url.path) is unreadable: moved to \(aside); this install registers anew")
        return nil
    }

    /// On Apple platforms the secret is in the Keychain, not the file; elsewhere the file holds it.
    private func withKeychainSecret(_ url: URL) -> DeviceState {
        #if canImport(Security) && canImport(Darwin)
        var state = self
        if state.deviceSecret == nil { state.deviceSecret = KeychainSecret.read(account: url.path) }
        return state
        #else
        return self
        #endif
    }

    /// Takes `directory`'s lock (`pushbus-device.lock`, flock) for as long as the returned descriptor
    /// is open; throws when another process holds it.
    static func lock(_ directory: URL) throws -> Int32 {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory.appendingPathComponent("pushbus-device.lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TransportError("cannot open \(path)") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw TransportError("\(directory.path) is in use by another PushBus client (one client per state directory)")
        }
        return fd
    }

    /// Releases a lock `lock` took (nothing for -1).
    static func unlock(_ fd: Int32) {
        if fd >= 0 { close(fd) }
    }

    /// Writes the file whole: a temporary file, created readable by this user only before a byte of
    /// it is written, synced (unless `synced` is false), then renamed over the last.
    func save(to url: URL, synced: Bool = true) throws {
        #if canImport(Security) && canImport(Darwin)
        // On Apple platforms the secret goes to the Keychain and the file keeps the rest.
        var stored = self
        if let secret = deviceSecret { try KeychainSecret.write(secret, account: url.path) } else { KeychainSecret.delete(account: url.path) }
        stored.deviceSecret = nil
        let data = try JSONEncoder().encode(stored)
        #else
        let data = try JSONEncoder().encode(self)
        #endif
        let temporary = url.appendingPathExtension("tmp").path
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TransportError("cannot write \(temporary)") }
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        let flushed = !synced || fsync(fd) == 0
        close(fd)
        guard written, flushed, rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw TransportError("cannot replace \(url.path)")
        }
    }
}
