import Bus
import Credentials
import Foundation
import JSON
import Runtime
import SQLite
import Schema
import WireTime
import Worker

/// The `analytics` service: MA identities (EUIDs), user properties, contacts, channel values, events and
/// sessions, push statistics, and counts of what other services publish. Works on its storage inside
/// the worker's transactions.
///
/// Who may address which user: the app (`app:<app_key>`) any EUID of its app; a device only the EUIDs
/// bound to it (`DeviceBindings`), which its own `ma.start` and `ma.identify` give it (1008 otherwise).
public final class AnalyticsHandler: RequestHandler {
    public let service = Service.analytics
    public let storage: ServiceStorage
    public let settings: AnalyticsSettings
    private let identities: IdentityStore
    private let bindings = DeviceBindings()
    private let profiles = ProfileStore()
    private let events = EventStore()
    private let reports = ReportStore()
    private let clock: @Sendable () -> Double

    /// Opens (creating and migrating) the database at `path`. `clock` gives Unix seconds; tests move it.
    public init(path: String, publisher: String = "analytics", settings: AnalyticsSettings = AnalyticsSettings(),
                shard: ShardLayout = ShardLayout(), durable: Bool = true,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        identities = IdentityStore(shard: shard)
        storage = try ServiceStorage(path: path, migrations: AnalyticsSchema.migrations, publisher: publisher, durable: durable)
        self.settings = settings
        self.clock = clock
    }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        let signer = request.principal
        return switch command {
        case .maStart: try start(request.decode(MAStart.self), by: signer, in: db)
        case .maIdentify: try identify(request.decode(MAIdentify.self), by: signer, in: db)
        case .maContact: try setContacts(request.decode(MAContact.self), given: request.decode(ContactUpdate.Keys.self), by: signer, in: db)
        case .maEvents: try record(readEvents(request), by: signer, in: db)
        case .maProperty: try changeProperty(request.decode(MAProperty.self), by: signer, in: db)
        case .maChannelValue: try setChannelValues(request.decode(MAChannelValue.self), by: signer, in: db)
        case .maProfile: try profile(request.decode(MAUserRef.self), by: signer, in: db)
        case .maErase: try erase(request.decode(MAUserRef.self), by: signer, in: db)
        case .statsReport: try report(request.decode(StatsReport.self), in: db)
        case .statsMessage: try messageStats(request.decode(StatsMessage.self), in: db)
        case .statsEvents: try eventStats(request.decode(StatsEvents.self), in: db)
        default: throw notHandled(command)
        }
    }

    // MARK: identity

    /// The install's EUID when the app asks. When a device asks, its own current EUID (a new one on
    /// its first call), whatever `device_id` it names: the install follows it unless the install is
    /// another device's.
    func start(_ p: MAStart, by signer: Principal?, in db: Database) throws -> MAStarted {
        let appKey = try Validate.appKey(p.appKey)
        let deviceID = try Validate.required(p.deviceID, "device_id", maxBytes: 128)
        let identifiers = IdentifierCleanup.clean(p.user).valid
        let device = Self.device(signer)
        let now = clock()
        let current = try (device.map { try bindings.current(db, registrationID: $0) }
                           ?? identities.install(db, appKey: appKey, deviceID: deviceID))
            .flatMap { try identities.live(db, euid: $0, appKey: appKey) }
        let euid: String
        if identifiers.isEmpty {
            euid = try current ?? identities.create(db, appKey: appKey, now: now)
        } else {
            euid = try resolver.resolve(db, appKey: appKey, current: current, identifiers: identifiers, now: now,
                                        device: device).euid
        }
        try follow(db, appKey: appKey, deviceID: deviceID, euid: euid, device: device)
        return MAStarted(euid: euid)
    }

    /// -3 when no identifier survives the cleanup; otherwise code 0 with a result per field in `message`.
    func identify(_ p: MAIdentify, by signer: Principal?, in db: Database) throws -> MAIdentified {
        let appKey = try Validate.appKey(p.appKey)
        let euid = try Self.euid(p.euid)
        let deviceID = try p.deviceID.map { try Validate.required($0, "device_id", maxBytes: 128) }
        let cleaned = IdentifierCleanup.clean(p.user)
        guard !cleaned.valid.isEmpty else {
            let rejected = MAIdentified(euid: euid, results: Self.byName(cleaned.rejected)).message
            throw CommandError(.maInvalidParameter, rejected.isEmpty ? "no identifier given: user_id, anonymous_id, email or phone" : rejected)
        }
        let device = Self.device(signer)
        let now = clock()
        let current = try live(db, euid, appKey, by: signer)
        let resolution = try resolver.resolve(db, appKey: appKey, current: current, identifiers: cleaned.valid, now: now,
                                              device: device)
        if let device { try bindings.bind(db, registrationID: device, euid: resolution.euid) }
        if let deviceID { try follow(db, appKey: appKey, deviceID: deviceID, euid: resolution.euid, device: device) }
        let results = resolution.results.merging(cleaned.rejected) { kept, _ in kept }
        return MAIdentified(euid: resolution.euid, results: Self.byName(results))
    }

    /// Points the install at `euid`, and binds `euid` to the device that signed. An install whose
    /// EUID is not bound to that device is another device's (or the app's) and stays where it is.
    private func follow(_ db: Database, appKey: String, deviceID: String, euid: String, device: String?) throws {
        if let device {
            try bindings.bind(db, registrationID: device, euid: euid)
            if let held = try identities.install(db, appKey: appKey, deviceID: deviceID)
                .flatMap({ try identities.live(db, euid: $0, appKey: appKey) }),
               try !bindings.isBound(db, registrationID: device, euid: held) {
                return
            }
        }
        try identities.setInstall(db, appKey: appKey, deviceID: deviceID, euid: euid)
    }

    // MARK: profile

    func setContacts(_ p: MAContact, given: ContactUpdate.Keys, by signer: Principal?, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let euid = try Self.euid(p.euid)
        let update = try ContactUpdate(p.contacts, given: given.contacts.map { Array($0.keys) } ?? [])
        let live = try live(db, euid, appKey, by: signer)
        for change in update.changes {
            try profiles.setContact(db, euid: live, kind: change.kind, value: change.value)
        }
        return Empty()
    }

    func changeProperty(_ p: MAProperty, by signer: Principal?, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let euid = try Self.euid(p.euid)
        let operation = try PropertyOperation(p)
        try PropertyEditor(profiles: profiles).apply(operation, euid: try live(db, euid, appKey, by: signer), appKey: appKey, in: db)
        return Empty()
    }

    /// Values are trimmed; the list and every trimmed value must be non-empty; duplicates are dropped.
    func setChannelValues(_ p: MAChannelValue, by signer: Principal?, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let euid = try Self.euid(p.euid)
        guard let channelID = p.channelID else { throw CommandError.empty("channel_id is missing") }
        guard channelID > 0 else { throw CommandError.invalid("channel_id must be greater than 0") }
        guard let given = p.values else { throw CommandError.empty("values is missing") }
        let values = PropertyRules.unique(given.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        guard !values.isEmpty, values.allSatisfy({ !$0.isEmpty }) else {
            throw CommandError.invalid("values and every trimmed value must not be empty")
        }
        guard values.count <= 100, values.allSatisfy({ $0.utf8.count <= 1024 }) else {
            throw CommandError.invalid("at most 100 values of at most 1024 bytes each")
        }
        try profiles.setChannel(db, euid: try live(db, euid, appKey, by: signer), channelID: channelID, values: values)
        return Empty()
    }

    func profile(_ p: MAUserRef, by signer: Principal?, in db: Database) throws -> MAProfile {
        let appKey = try Validate.appKey(p.appKey)
        let euid = try Self.euid(p.euid)
        let live = try live(db, euid, appKey, by: signer)
        let ids = try identities.identities(db, euid: live)
        let contacts = try profiles.contacts(db, euid: live)
        let channels = try profiles.channels(db, euid: live)
        return MAProfile(
            properties: try profiles.properties(db, euid: live),
            identities: MAUserID(userID: ids[.userID].map(JSONValue.string), anonymousID: ids[.anonymousID].map(JSONValue.string),
                                 email: ids[.email].map(JSONValue.string), phone: ids[.phone].map(JSONValue.string)),
            contacts: MAUserContacts(email: contacts["email"], mobilePhone: contacts["mobile_phone"],
                                     landlinePhone: contacts["landline_phone"], whatsappPhone: contacts["whatsapp_phone"]),
            euid: live,
            channels: channels.isEmpty ? nil : channels)
    }

    /// `ma.erase`, the app's call for a user's right to erasure: everything kept about the user
    /// (`UserErasure`), in the request's transaction; -2 for an EUID the app does not have (erased
    /// already). A device may not erase (1008), not even its own user.
    func erase(_ p: MAUserRef, by signer: Principal?, in db: Database) throws -> MAErased {
        let appKey = try Validate.appKey(p.appKey)
        let euid = try Self.euid(p.euid)
        if Self.device(signer) != nil { throw CommandError(.appKeyInvalid, "only the app may erase a user") }
        return try UserErasure().erase(db, euid: try live(db, euid, appKey, by: signer))
    }

    // MARK: events

    /// Stores the good events of a batch (each with the batch's UTM properties), counts them by hour and
    /// folds them into the user's sessions; bad events are listed in `rejected`.
    func record(_ p: EventsPayload, by signer: Principal?, in db: Database) throws -> MAEventsAccepted {
        let appKey = try Validate.appKey(p.appKey)
        let euid = try Self.euid(p.euid)
        let batch = try EventBatch(p, now: clock())
        let timeout = try p.sessionTimeout.map { timeout throws(CommandError) in
            guard timeout >= 1, timeout <= Double(AnalyticsSettings.range.upperBound) else {
                throw CommandError.invalid("session_timeout must be 1...\(AnalyticsSettings.range.upperBound) seconds")
            }
            return timeout
        } ?? settings.sessionTimeout(for: appKey)
        let live = try live(db, euid, appKey, by: signer)
        for event in batch.events {
            try events.insert(db, euid: live, name: event.name, time: event.time, properties: event.properties, utm: batch.utm)
        }
        var hourly: [String: [Int: Int]] = [:]
        for event in batch.events { hourly[event.name, default: [:]][Self.hour(event.time), default: 0] += 1 }
        for (name, hours) in hourly {
            for (hour, count) in hours { try events.count(db, appKey: appKey, name: name, hour: hour, by: count) }
        }
        try SessionTracker(events: events).record(db, times: batch.events.map(\.time), euid: live, appKey: appKey, timeout: timeout)
        return MAEventsAccepted(accepted: batch.events.count, rejected: batch.rejected.isEmpty ? nil : batch.rejected)
    }

    /// The payload's tree read as it is; decoded as `MAEvents` only when that reading declines, so that
    /// a payload of the wrong shape gets exactly the decoder's error.
    func readEvents(_ request: Request) throws(CommandError) -> EventsPayload {
        if let payload = EventsPayload(try request.decode(JSONValue.self)) { return payload }
        return EventsPayload(try request.decode(MAEvents.self))
    }

    /// Counts by UTC hour or day. `name` picks one event; without it, all the app's own events. Names
    /// starting with `$` are the service's counters: `$session` (sessions started), `$<kind>` of
    /// `stats.report`, `$<topic>` of the bus events followed.
    func eventStats(_ p: StatsEvents, in db: Database) throws -> EventStats {
        let appKey = try Validate.appKey(p.appKey)
        let window = try StatsWindow(p)
        if let name = p.name, name.isEmpty || name.utf8.count > EventBatch.maxNameBytes {
            throw CommandError.invalid("name must be 1..\(EventBatch.maxNameBytes) bytes")
        }
        let hourly = switch p.name {
        case nil: try events.hourlyCustom(db, appKey: appKey, fromHour: window.fromHour, toHour: window.toHour)
        case Self.sessionCounter?: try events.hourlySessions(db, appKey: appKey, fromHour: window.fromHour, toHour: window.toHour)
        case let name?: try events.hourly(db, appKey: appKey, name: name, fromHour: window.fromHour, toHour: window.toHour)
        }
        return EventStats(buckets: window.buckets(hourly))
    }

    static let sessionCounter = "$session"

    // MARK: push statistics

    /// Message kinds need `msg_id` and count once per device and message, once push has said the
    /// device was a target (`ReportVerifier`); page kinds need `page` and count at once.
    func report(_ p: StatsReport, in db: Database) throws -> Empty {
        let appKey = try Validate.appKey(p.appKey)
        let registrationID = try Validate.registrationID(p.registrationID)
        guard let kind = p.kind else { throw CommandError.empty("kind is missing") }
        var time = clock()
        if let text = p.time {
            guard let parsed = RFC3339.seconds(from: text), parsed >= 0 else { throw CommandError.invalid("time is not an RFC 3339 time") }
            time = parsed
        }
        let isPage = kind == .pageEnter || kind == .pageLeave
        let subject = try isPage ? Validate.page(p.page)
                                 : Validate.required(p.msgID, "msg_id", maxBytes: 128)
        guard try !Tombstones.contains(db, registrationID: registrationID) else { throw Tombstones.refusal }
        guard try !reports.isForgotten(db, registrationID: registrationID) else {
            throw CommandError.invalid("registration_id was deleted")
        }
        guard isPage else {
            // Counted once push says the device was a target of the message (`ReportVerifier`).
            try reports.insertMessageReport(db, appKey: appKey, registrationID: registrationID, kind: kind, msgID: subject, time: time)
            return Empty()
        }
        try reports.insertPageReport(db, appKey: appKey, registrationID: registrationID, kind: kind, page: subject, time: time)
        try events.count(db, appKey: appKey, name: "$" + kind.rawValue, hour: Self.hour(time), by: 1)
        return Empty()
    }

    func messageStats(_ p: StatsMessage, in db: Database) throws -> MessageStats {
        let appKey = try Validate.appKey(p.appKey)
        guard let ids = p.msgIDs, !ids.isEmpty else { throw CommandError.empty("msg_ids is missing or empty") }
        guard ids.count <= 1000 else { throw CommandError.invalid("at most 1000 msg_ids in one call") }
        for id in ids { _ = try Validate.required(id, "msg_id", maxBytes: 128) }
        var messages: [String: MessageCounts] = [:]
        for id in ids { messages[id] = try reports.messageCounts(db, appKey: appKey, msgID: id) }
        return MessageStats(messages: messages)
    }

    // MARK: bus events

    public var subscriptions: [Topic] {
        [.deviceRegistered, .deviceDeleted, .tagsChanged, .aliasChanged, .badgeChanged, .localFired, .pushDelivered]
    }

    /// Adds a push's delivery counts to its message statistics (`push.delivered`). Counts any other
    /// event as `$<topic>` in its app's hour; a deleted device's push reports and its
    /// bindings to EUIDs are forgotten (the users' MA data stays: `ma.erase` removes it).
    public func apply(_ event: BusEvent, in db: Database) throws {
        guard let topic = Topic(rawValue: event.topic) else { return }
        if topic == .pushDelivered {
            let delivered = try event.decode(PushDeliveredEvent.self).body
            try reports.addCount(db, appKey: delivered.appKey, msgID: delivered.msgID, kind: "sent", count: delivered.sent)
            try reports.addCount(db, appKey: delivered.appKey, msgID: delivered.msgID, kind: "failed",
                                     count: delivered.failed.values.reduce(0, +))
            return
        }
        let fact = try FieldReader.decode(Fact.self, from: event.data)
        let time = RFC3339.seconds(from: fact.time) ?? clock()
        try events.count(db, appKey: fact.appKey, name: "$" + topic.rawValue, hour: Self.hour(time), by: 1)
        if topic == .deviceDeleted, let registrationID = fact.registrationID {
            try reports.forget(db, appKey: fact.appKey, registrationID: registrationID, now: clock())
            try bindings.forget(db, registrationID: registrationID)
        }
    }

    /// What every followed event carries: read in place (a fired local notification's content,
    /// which analytics does not read, is skipped, not parsed into a tree).
    struct Fact: Decodable, FieldReadable, Equatable {
        let time: String
        let appKey: String
        let registrationID: String?
        enum CodingKeys: String, CodingKey { case time, appKey = "app_key", registrationID = "registration_id" }

        init(fields: FieldReader) throws(FieldReader.Decline) {
            guard let time = try fields.string(CodingKeys.time), let appKey = try fields.string(CodingKeys.appKey) else {
                throw FieldReader.Decline()
            }
            self.time = time
            self.appKey = appKey
            registrationID = try fields.string(CodingKeys.registrationID)
        }
    }

    // MARK: checks

    private var resolver: IdentityResolver { IdentityResolver(identities: identities) }

    /// The live EUID for `euid` in the app; -2 when the app has no such EUID (`ma.start` not called),
    /// 1008 when a device signed and it is not bound to that device.
    private func live(_ db: Database, _ euid: String, _ appKey: String, by signer: Principal?) throws -> String {
        guard let live = try identities.live(db, euid: euid, appKey: appKey) else {
            throw CommandError(.maNotStarted, "unknown euid for this app_key: call ma.start first")
        }
        if let device = Self.device(signer), try !bindings.isBound(db, registrationID: device, euid: live) {
            throw CommandError(.appKeyInvalid, "euid is not this device's: a device acts only on the EUID its own ma.start gave it")
        }
        return live
    }

    /// The registration ID of the device that signed, or nil when the app did (or nobody, in tests).
    private static func device(_ signer: Principal?) -> String? {
        if case .device(let id)? = signer { return id }
        return nil
    }

    /// `euid`: required (6001), 1..64 letters, digits, `_` or `-` (6017).
    static func euid(_ value: String?) throws(CommandError) -> String {
        guard let value, !value.isEmpty else { throw .empty("euid is missing") }
        let isKeyByte: (UInt8) -> Bool = { byte in
            (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
        }
        guard value.utf8.count <= 64, value.utf8.allSatisfy(isKeyByte) else { throw .invalid("euid is malformed") }
        return value
    }

    static func hour(_ time: Double) -> Int { Int((time / 3600).rounded(.down)) }

    private static func byName(_ results: [IdentifierKind: MAFieldResult]) -> [String: MAFieldResult] {
        Dictionary(uniqueKeysWithValues: results.map { ($0.key.rawValue, $0.value) })
    }
}
