import Credentials
import Events
import Foundation
import Runtime
import SQLite
import Schema
import WireTime
import Worker

/// The `registration` service: apps, devices and their registration IDs, tokens, mobile number,
/// language and time zone. Works on its storage inside the worker's transactions.
public final class RegistrationHandler: RequestHandler {
    public let service = Service.registration
    public let storage: ServiceStorage
    let devices = DeviceStore()
    private let mobileLimiter: RequestRateLimiter
    let clock: @Sendable () -> Double
    /// The shard this handler serves; the registration IDs it gives out hash to it.
    private let shard: ShardLayout
    /// Derives app master secrets and device secrets (the gateway derives the same to check proofs).
    private let secrets: Secrets

    /// Opens (creating and migrating) the database at `path`. `clock` gives Unix seconds; tests move it.
    public init(path: String, secrets: Secrets, publisher: String = "registration", shard: ShardLayout = ShardLayout(),
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        storage = try ServiceStorage(path: path, migrations: RegistrationSchema.migrations, publisher: publisher)
        mobileLimiter = RequestRateLimiter(limit: 3, window: 10, store: storage.store)
        self.secrets = secrets
        self.shard = shard
        self.clock = clock
    }

    private var outbox: Outbox { storage.outbox }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        switch command {
        case .appCreate: try createApp(request.decode(AppCreate.self), in: db)
        case .appList: try listApps(request.decode(AppListQuery.self), in: db)
        case .deviceRegister: try register(request.decode(DeviceRegister.self), by: request.principal, in: db)
        case .deviceGet: try get(request.decode(DeviceRef.self), in: db)
        case .deviceUpdate: try update(request.decode(DeviceUpdate.self), in: db)
        case .deviceMobile: try setMobile(request.decode(DeviceMobile.self), in: db)
        case .liveActivityStartToken: try setStartToken(request.decode(LiveActivityStartToken.self), in: db)
        case .liveActivityToken: try setActivityToken(request.decode(LiveActivityToken.self), in: db)
        case .deviceDelete: try delete(request.decode(DeviceRef.self), in: db)
        case .deviceTokens: try tokens(request.decode(DeviceTokensQuery.self), in: db)
        case .deviceTokensInvalid: try disableTokens(request.decode(DeviceTokensInvalid.self), in: db)
        default: throw notHandled(command)
        }
    }

    // MARK: commands

    func createApp(_ p: AppCreate, in db: Database) throws -> AppCreated {
        let name = try Validate.required(p.name, "name", maxBytes: 128)
        let appKey = try p.appKey.map { key throws(CommandError) in try Validate.appKey(key) } ?? RandomKey.hex(bytes: 12)
        let created = AppCreated(appKey: appKey, masterSecret: secrets.masterSecret(appKey: appKey))
        if try !devices.appExists(db, appKey: appKey) {
            try devices.insertApp(db, appKey: appKey, name: name, now: clock())
        }
        return created
    }

    func listApps(_ p: AppListQuery, in db: Database) throws -> AppList {
        let limit = p.limit ?? 100
        guard (1...500).contains(limit) else { throw CommandError.invalid("limit must be 1...500") }
        let rows = try db.rows("SELECT app_key, name, created_at FROM apps WHERE app_key > ? ORDER BY app_key LIMIT ?", p.after ?? "", limit + 1)
        let apps = rows.prefix(limit).map { row in
            AppSummary(appKey: row[0].string ?? "", name: row[1].string ?? "", createdAt: RFC3339.string(from: Date(timeIntervalSince1970: row[2].double ?? 0)))
        }
        return AppList(apps: Array(apps), next: rows.count > limit ? apps.last?.appKey : nil)
    }

    /// A first registration (no `registration_id`) may go unsigned: it gets a new registration ID,
    /// and an install (app_key + device_id) that is registered already is refused (1008) with nothing
    /// revealed or changed, since anyone can send it. A re-registration names the device's
    /// `registration_id` and is signed by that device or by its app (`principal`): the same ID comes
    /// back and the tokens it carries are refreshed.
    func register(_ p: DeviceRegister, by principal: Principal?, in db: Database) throws -> DeviceRegistered {
        let appKey = try Validate.appKey(p.appKey)
        let platform = try Validate.platform(p.platform)
        let deviceID = p.deviceID.flatMap { $0.isEmpty ? nil : $0 }
        if let deviceID, deviceID.utf8.count > 128 { throw CommandError.invalid("device_id is longer than 128 bytes") }
        let apnsToken = try p.apnsToken.map { try Validate.hexToken($0, "apns_token") }
        if let version = p.sdkVersion, version.utf8.count > 32 { throw CommandError.invalid("sdk_version is longer than 32 bytes") }
        if p.registrationID != nil {
            return try reregister(p, appKey: appKey, platform: platform, deviceID: deviceID, apnsToken: apnsToken, by: principal, in: db)
        }
        guard try devices.appExists(db, appKey: appKey) else { throw CommandError(.appKeyInvalid, "unknown app_key") }
        if let deviceID, try devices.registrationID(db, appKey: appKey, deviceID: deviceID) != nil {
            throw CommandError(.appKeyInvalid, "device_id is registered: re-register signed by that device, with its registration_id")
        }
        var registrationID = newRegistrationID()
        while try devices.exists(db, registrationID: registrationID) { registrationID = newRegistrationID() }
        try devices.insertDevice(db, registrationID: registrationID, p, appKey: appKey, platform: platform,
                                 deviceID: deviceID, apnsToken: apnsToken, now: clock())
        try outbox.append(DeviceRegisteredEvent(appKey: appKey, registrationID: registrationID, platform: platform), in: db)
        return DeviceRegistered(registrationID: registrationID, isNew: true,
                                deviceSecret: secrets.deviceSecret(appKey: appKey, registrationID: registrationID))
    }

    /// The device's own re-registration, or its app's on its behalf: `device_id`, when given, must be
    /// the one the device registered with (6017), since an install keeps its ID.
    private func reregister(_ p: DeviceRegister, appKey: String, platform: String, deviceID: String?, apnsToken: String?,
                            by principal: Principal?, in db: Database) throws -> DeviceRegistered {
        let registrationID = try Validate.registrationID(p.registrationID)
        guard principal == .device(registrationID: registrationID) || principal == .app(appKey: appKey) else {
            throw CommandError(.appKeyInvalid, "a re-registration must be signed by the device it names or by its app")
        }
        _ = try owned(appKey: appKey, registrationID: registrationID, in: db)
        if let deviceID, try devices.deviceID(db, registrationID: registrationID) != deviceID {
            throw CommandError.invalid("device_id is not the one registration_id was registered with")
        }
        try devices.refreshDevice(db, registrationID: registrationID, p, platform: platform, apnsToken: apnsToken, now: clock())
        return DeviceRegistered(registrationID: registrationID, isNew: false,
                                deviceSecret: secrets.deviceSecret(appKey: appKey, registrationID: registrationID))
    }

    func get(_ p: DeviceRef, in db: Database) throws -> DeviceInfo {
        let registrationID = try owned(appKey: p.appKey, registrationID: p.registrationID, in: db)
        guard let device = try devices.device(db, registrationID: registrationID) else {
            throw CommandError.invalid("unknown registration_id")
        }
        return DeviceInfo(device: device)
    }

    /// Publishes `device.updated` when the language or time zone is set, so the scheduler can follow it.
    func update(_ p: DeviceUpdate, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let registrationID = try owned(appKey: appKey, registrationID: p.registrationID, in: db)
        guard p.apnsToken != nil || !p.voipToken.isAbsent || p.language != nil || p.timezone != nil || p.notificationAuthorization != nil else {
            throw CommandError.empty("nothing to update: give apns_token, voip_token, language, timezone or notification_authorization")
        }
        var changes: [(DeviceStore.Column, String?)] = []
        if let token = p.apnsToken { changes.append((.apnsToken, try Validate.hexToken(token, "apns_token"))) }
        switch p.voipToken {
        case .absent: break
        case .null: changes.append((.voipToken, nil))
        case .value(let token): changes.append((.voipToken, try Validate.hexToken(token, "voip_token")))
        }
        let language = try p.language.map(Validate.language)
        let timezone = try p.timezone.map(Validate.timeZone)
        if let language { changes.append((.language, language)) }
        if let timezone { changes.append((.timezone, timezone)) }
        if let authorization = p.notificationAuthorization {
            guard ["granted", "denied", "provisional"].contains(authorization) else {
                throw CommandError.invalid("notification_authorization must be granted, denied or provisional")
            }
            changes.append((.notificationAuthorization, authorization))
        }
        let now = clock()
        for (column, value) in changes {
            try devices.set(db, column, to: value, registrationID: registrationID, now: now)
        }
        if language != nil || timezone != nil {
            try outbox.append(DeviceUpdatedEvent(appKey: appKey, registrationID: registrationID,
                                                 language: language, timezone: timezone), in: db)
        }
        return Empty()
    }

    /// Check order as the public service: rate (3 per 10 s, 6011) before format (6023) and length (6025).
    func setMobile(_ p: DeviceMobile, in db: Database) throws -> Empty {
        let registrationID = try owned(appKey: p.appKey, registrationID: p.registrationID, in: db)
        guard mobileLimiter.allow(registrationID, now: clock()) else {
            throw CommandError(.tooFrequent, "mobile number set more than 3 times in 10 s, try later")
        }
        let mobile = try Validate.mobile(p.mobile)
        try devices.set(db, .mobile, to: mobile, registrationID: registrationID, now: clock())
        return Empty()
    }

    func setStartToken(_ p: LiveActivityStartToken, in db: Database) throws -> LiveActivityStartTokenSaved {
        let registrationID = try owned(appKey: p.appKey, registrationID: p.registrationID, in: db)
        let attributes = try Validate.required(p.activityAttributes, "activity_attributes", maxBytes: 128)
        try saveToken(.start, registrationID: registrationID, key: attributes, p.token, in: db)
        return LiveActivityStartTokenSaved(activityAttributes: attributes)
    }

    func setActivityToken(_ p: LiveActivityToken, in db: Database) throws -> LiveActivityTokenSaved {
        let registrationID = try owned(appKey: p.appKey, registrationID: p.registrationID, in: db)
        let activityID = try Validate.liveActivityID(p.liveActivityID)
        try saveToken(.activity, registrationID: registrationID, key: activityID, p.token, in: db)
        return LiveActivityTokenSaved(liveActivityID: activityID)
    }

    func delete(_ p: DeviceRef, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let registrationID = try owned(appKey: appKey, registrationID: p.registrationID, in: db)
        try devices.delete(db, registrationID: registrationID)
        try Tombstones.record(db, registrationID: registrationID, now: clock())
        try outbox.append(DeviceDeletedEvent(appKey: appKey, registrationID: registrationID), in: db)
        return Empty()
    }

    /// 20 hex digits: the Unix second it is issued (8), then 48 random bits (12), drawn until they land
    /// on this shard (one draw when unsharded). IDs issued later sort later, so each new device's
    /// entry in the ID indexes (here and in every service that learns the device) lands on the
    /// index's last pages, not on a random page each: a registration's commit writes fewer pages.
    /// The random part still makes an ID unguessable, and nothing is granted by knowing one.
    private func newRegistrationID() -> String {
        let second = withUnsafeBytes(of: UInt32(clamping: Int64(clock())).bigEndian, Array.init)
        while true {
            let id = RandomKey.hex(bytes: 6, after: second)
            if ShardHash.shard(of: id, count: shard.count) == shard.index { return id }
        }
    }

    // MARK: checks

    /// Saves a Live Activity token; null removes it, absent is 6001, a value must be hex.
    private func saveToken(_ kind: DeviceStore.LiveActivityTokenKind, registrationID: String, key: String,
                           _ token: Patch<String>, in db: Database) throws {
        let hex: String?
        switch token {
        case .absent: throw CommandError.empty("token is missing (null removes it)")
        case .null: hex = nil
        case .value(let value): hex = try Validate.hexToken(value, "token")
        }
        try devices.setToken(db, kind, registrationID: registrationID, key: key, token: hex, now: clock())
    }

    /// Validates the pair and checks that the device exists and belongs to the app.
    private func owned(appKey: String?, registrationID: String?, in db: Database) throws -> String {
        let appKey = try Validate.appKey(appKey)
        let registrationID = try Validate.registrationID(registrationID)
        guard let owner = try devices.appKey(db, registrationID: registrationID) else { throw CommandError.invalid("unknown registration_id") }
        guard owner == appKey else { throw CommandError(.appKeyInvalid, "registration_id belongs to another app_key") }
        return registrationID
    }
}
