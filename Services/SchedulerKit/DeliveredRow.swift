import Foundation
import SQLite

/// A delivered or missed notification as stored.
struct DeliveredRow {
    let identifier: String
    /// `LocalContent` JSON.
    let content: Data
    /// `LocalTrigger` JSON.
    let trigger: Data
    /// Nil when it was missed.
    let firedAt: Double?
    let dueAt: Double

    init(row: Row) {
        identifier = row[0].string ?? ""
        content = row[1].data ?? Data()
        trigger = row[2].data ?? Data()
        firedAt = row[5].int == 1 ? nil : row[3].double
        dueAt = row[4].double ?? 0
    }
}
