import Bus
import Foundation
import SQLite
import Schema

/// What the scheduler follows on the bus: deleted devices are forgotten, and a device's new time
/// zone moves its calendar triggers that have no zone of their own.
extension SchedulerHandler {
    public var subscriptions: [Topic] { [.deviceDeleted, .deviceUpdated] }

    public func apply(_ event: BusEvent, in db: Database) throws {
        switch event.topic {
        case Topic.deviceDeleted.rawValue:
            let deleted = try event.decode(DeviceDeletedEvent.self).body
            timer.noteStale(try requests.forget(db, registrationID: deleted.registrationID))
        case Topic.deviceUpdated.rawValue:
            let updated = try event.decode(DeviceUpdatedEvent.self).body
            guard let zone = updated.timezone else { return }
            guard TimeZone(identifier: zone) != nil else {
                logger.warning("device time zone unknown here, ignored", ["zone": zone])
                return
            }
            try follow(db, zone: zone, of: updated)
        default:
            break
        }
    }

    /// Keeps the device's zone and moves its pending calendar triggers read in it.
    private func follow(_ db: Database, zone: String, of device: DeviceUpdatedEvent) throws {
        try requests.setZone(db, registrationID: device.registrationID, appKey: device.appKey, zone: zone)
        let now = clock()
        for row in try requests.pending(db, registrationID: device.registrationID)
        where row.kind == LocalTrigger.Kind.dateComponents.rawValue {
            guard let due = row.nextFireAt, due > now else { continue }
            let trigger: LocalTrigger = try Self.decode(row.trigger)
            guard trigger.timezone == nil,
                  let next = try Schedule(trigger, deviceZone: row.deviceZone).firstFire(after: now), next != due else { continue }
            try requests.reschedule(db, id: row.id, nextFireAt: next)
            timer.noteStale()
            timer.schedule(id: row.id, at: next)
        }
    }
}
