import Foundation
import JSON
import Runtime
import SQLite
import Schema
import WireTime
import Worker

/// The `scheduler` service: each device's local notifications (pending and delivered), fired on
/// time by the worker loop's ticks, region triggers fired by `location.report`. Works on its storage
/// inside the worker's transactions. Follows `device.deleted` and `device.updated` on the bus.
public final class SchedulerHandler: RequestHandler {
    public let service = Service.scheduler
    public let storage: ServiceStorage
    let settings: SchedulerSettings
    let requests = LocalStore()
    let pushSchedules = PushScheduleStore()
    var timer = FireTimer()
    let logger: Logger
    let clock: @Sendable () -> Double

    /// Largest `content` accepted, as encoded JSON: the APNs payload limit.
    static let maxContentBytes = 4096
    /// Longest identifier, in UTF-8 bytes.
    static let maxIdentifierBytes = 256

    /// Opens (creating and migrating) the database at `path` and loads the timer from it.
    /// `clock` gives Unix seconds; tests move it.
    public init(path: String, settings: SchedulerSettings = SchedulerSettings(), publisher: String = "scheduler",
                logger: Logger = Logger(label: "scheduler"),
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        storage = try ServiceStorage(path: path, migrations: SchedulerSchema.migrations, publisher: publisher)
        self.settings = settings
        self.logger = logger
        self.clock = clock
        try storage.store.read { db in try timer.load(db, requests) }
    }

    /// How many timed requests the timer holds (stale entries included).
    public var queuedTimers: Int { timer.count }

    public func handle(_ command: Command, _ request: Request, in db: Database) throws -> any Encodable {
        switch command {
        case .localAdd: try add(request.decode(LocalAdd.self), in: db)
        case .localRemove: try remove(request.decode(LocalFilter.self), in: db)
        case .localFind: try find(request.decode(LocalFilter.self), in: db)
        case .locationReport: try report(request.decode(LocationReport.self), in: db)
        case .scheduleCreate: try createSchedule(request.decode(ScheduleCreate.self), answers: request.answers, in: db)
        case .scheduleGet: try getSchedule(request.decode(ScheduleRef.self), in: db)
        case .scheduleUpdate: try updateSchedule(request.decode(ScheduleUpdate.self), answers: request.answers, in: db)
        case .scheduleDelete: try deleteSchedule(request.decode(ScheduleRef.self), in: db)
        case .scheduleList: try listSchedules(request.decode(ScheduleList.self), in: db)
        case .scheduleMsgIDs: try scheduleMsgIDs(request.decode(ScheduleRef.self), in: db)
        default: throw notHandled(command)
        }
    }

    // MARK: commands

    /// Adds a request, or replaces the one with the same identifier. A deleted device gets none
    /// (1008), whoever signed.
    func add(_ p: LocalAdd, in db: Database) throws -> LocalAdded {
        let (appKey, registrationID) = try Self.device(p.appKey, p.registrationID)
        let identifier = try Validate.required(p.identifier, "identifier", maxBytes: Self.maxIdentifierBytes)
        let content = try Self.encodedContent(p.content)
        let now = clock()
        try checkOwner(db, appKey: appKey, registrationID: registrationID)
        guard try !Tombstones.contains(db, registrationID: registrationID) else { throw Tombstones.refusal }
        let schedule = try Schedule(p.trigger, deviceZone: try requests.zone(db, registrationID: registrationID))
        let next = try Self.firstFire(schedule, after: now)
        let existing = try requests.pendingKey(db, registrationID: registrationID, identifier: identifier)
        if existing == nil, try requests.pendingCount(db, registrationID: registrationID) >= settings.maxPending {
            throw CommandError(.localPendingLimit,
                               "the device already has \(settings.maxPending) pending local notifications")
        }
        try requests.addDevice(db, registrationID: registrationID, appKey: appKey)
        let id = try requests.savePending(db, replacing: existing?.id, registrationID: registrationID,
                                          identifier: identifier, kind: schedule.kind.rawValue,
                                          content: content, trigger: WireCodec.encode(p.trigger), nextFireAt: next,
                                          now: now)
        if existing?.nextFireAt != nil { timer.noteStale() }
        if let next { timer.schedule(id: id, at: next) }
        return LocalAdded(identifier: identifier, nextFireAt: next.map(RFC3339.string(seconds:)))
    }

    /// Removes pending requests, delivered notifications, or both (`delivered` absent), by identifier or all.
    func remove(_ p: LocalFilter, in db: Database) throws -> LocalRemoved {
        let (appKey, registrationID) = try Self.device(p.appKey, p.registrationID)
        let wanted = try IdentifierFilter(p.identifiers)
        try checkOwner(db, appKey: appKey, registrationID: registrationID)
        var removed: [String] = []
        if p.delivered != true {
            for row in try requests.pending(db, registrationID: registrationID) where wanted.admits(row.identifier) {
                try requests.deletePending(db, id: row.id)
                if row.nextFireAt != nil { timer.noteStale() }
                removed.append(row.identifier)
            }
        }
        if p.delivered != false {
            for row in try requests.delivered(db, registrationID: registrationID) where wanted.admits(row.identifier) {
                try requests.deleteDelivered(db, registrationID: registrationID, identifier: row.identifier)
                if !removed.contains(row.identifier) { removed.append(row.identifier) }
            }
        }
        return LocalRemoved(removed: removed)
    }

    /// Lists pending requests (`requests`), delivered notifications (`notifications`), or both
    /// when `delivered` is absent.
    func find(_ p: LocalFilter, in db: Database) throws -> LocalFound {
        let (appKey, registrationID) = try Self.device(p.appKey, p.registrationID)
        let wanted = try IdentifierFilter(p.identifiers)
        try checkOwner(db, appKey: appKey, registrationID: registrationID)
        var found = LocalFound()
        if p.delivered != true {
            found.requests = try requests.pending(db, registrationID: registrationID)
                .filter { wanted.admits($0.identifier) }
                .map { LocalRequest(identifier: $0.identifier, content: try Self.decode($0.content),
                                    trigger: try Self.decode($0.trigger), nextFireAt: $0.nextFireAt.map(RFC3339.string(seconds:))) }
        }
        if p.delivered != false {
            found.notifications = try requests.delivered(db, registrationID: registrationID)
                .filter { wanted.admits($0.identifier) }
                .map { LocalNotification(identifier: $0.identifier, content: try Self.decode($0.content),
                                         trigger: try Self.decode($0.trigger), firedAt: $0.firedAt.map(RFC3339.string(seconds:)),
                                         dueAt: RFC3339.string(seconds: $0.dueAt), missed: $0.firedAt == nil ? true : nil) }
        }
        return found
    }

    /// Fires the device's region triggers whose edge this position crosses.
    func report(_ p: LocationReport, in db: Database) throws -> LocationReported {
        let (appKey, registrationID) = try Self.device(p.appKey, p.registrationID)
        guard let latitude = p.latitude, let longitude = p.longitude else {
            throw CommandError.empty("latitude and longitude are required")
        }
        try RegionRule.checkPosition(latitude: latitude, longitude: longitude)
        let now = clock()
        try checkOwner(db, appKey: appKey, registrationID: registrationID)
        var fired: [String] = []
        for row in try requests.pending(db, registrationID: registrationID) where row.nextFireAt == nil {
            guard case .region(let region, let repeats) = try schedule(of: row) else { continue }
            let inside = region.contains(latitude: latitude, longitude: longitude)
            if region.fires(wasInside: row.inside, isInside: inside) {
                try deliver(db, row, due: now, now: now, next: nil)
                fired.append(row.identifier)
                if !repeats {
                    try requests.deletePending(db, id: row.id)
                    continue
                }
            }
            if row.inside != inside { try requests.setInside(db, id: row.id, inside: inside) }
        }
        return LocationReported(fired: fired)
    }

    // MARK: shared steps

    /// Publishes `local.fired` and records the delivery.
    func deliver(_ db: Database, _ row: PendingRow, due: Double, now: Double, next: Double?) throws {
        let event = LocalFiredEvent(appKey: row.appKey, registrationID: row.registrationID, identifier: row.identifier,
                                    content: try Self.decode(row.content), firedAt: RFC3339.string(seconds: now),
                                    nextFireAt: next.map(RFC3339.string(seconds:)))
        try storage.outbox.append(event, in: db)
        try requests.recordDelivered(db, row, firedAt: now, dueAt: due, keep: settings.deliveredHistory)
    }

    /// The stored trigger, checked again, read in the device's zone.
    func schedule(of row: PendingRow) throws -> Schedule {
        try Schedule(try Self.decode(row.trigger) as LocalTrigger, deviceZone: row.deviceZone)
    }

    /// A device already seen under another app is refused (1008), as registration refuses it.
    private func checkOwner(_ db: Database, appKey: String, registrationID: String) throws {
        if let owner = try requests.appKey(db, registrationID: registrationID), owner != appKey {
            throw CommandError(.appKeyInvalid, "registration_id belongs to another app_key")
        }
    }

    // MARK: checks

    private static func device(_ appKey: String?, _ registrationID: String?) throws(CommandError) -> (String, String) {
        (try Validate.appKey(appKey), try Validate.registrationID(registrationID))
    }

    /// When a request first fires: 6101 when never, 6017 when after year 9999; nil for a region.
    private static func firstFire(_ schedule: Schedule, after now: Double) throws(CommandError) -> Double? {
        if case .region = schedule { return nil }
        guard let next = schedule.firstFire(after: now) else {
            throw CommandError(.localTriggerNeverFires, "the trigger never fires: its time is past or matches no date")
        }
        guard next <= Schedule.latest else { throw .invalid("the trigger fires after the year 9999") }
        return next
    }

    /// `content` as stored: required (6001), badge in 0...99999 and at most 4096 bytes of JSON (6017).
    private static func encodedContent(_ content: LocalContent?) throws(CommandError) -> Data {
        guard let content else { throw .empty("content is missing") }
        if let badge = content.badge, !(0...99_999).contains(badge) {
            throw .invalid("content.badge must be in 0...99999")
        }
        let data = WireCodec.encode(content)
        guard data.count <= maxContentBytes else {
            throw .invalid("content is \(data.count) bytes of JSON, over the \(maxContentBytes)-byte APNs limit")
        }
        return data
    }

    static func decode<T: Decodable>(_ data: Data) throws -> T {
        try JSONTreeDecoder().decode(T.self, from: data)
    }
}
