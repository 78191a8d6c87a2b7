import Foundation
import SQLite

/// A pending request as stored, with its device's app and time zone.
struct PendingRow {
    let id: Int64
    let registrationID: String
    let identifier: String
    let kind: String
    /// `LocalContent` JSON.
    let content: Data
    /// `LocalTrigger` JSON, as the app gave it.
    let trigger: Data
    let nextFireAt: Double?
    /// A region's last known state: nil before the first location report.
    let inside: Bool?
    let appKey: String
    let deviceZone: String?

    /// The columns `init(row:)` reads, in order, from `pending p JOIN devices d`.
    static let columns = """
        p.id, p.registration_id, p.identifier, p.kind, p.content, p.trigger, p.next_fire_at, p.inside,
        d.app_key, d.timezone
        """

    init(row: Row) {
        id = Int64(row[0].int ?? 0)
        registrationID = row[1].string ?? ""
        identifier = row[2].string ?? ""
        kind = row[3].string ?? ""
        content = row[4].data ?? Data()
        trigger = row[5].data ?? Data()
        nextFireAt = row[6].double
        inside = row[7].int.map { $0 != 0 }
        appKey = row[8].string ?? ""
        deviceZone = row[9].string
    }
}
