import Foundation
import Runtime
import SchedulerKit
import Schema
import Worker

/// Fills a scheduler database through the real handler, the way group-committed `local.add`
/// calls would: `perDevice` requests for each of `devices` devices, a mix of every trigger kind,
/// none due within the next two hours.
struct Seeder {
    let devices: Int
    let perDevice: Int
    /// Requests committed per transaction.
    let batch = 10_000

    static func deviceID(_ index: Int) -> String { "bench\(index)" }

    /// Returns the number of requests stored.
    func seed(path: String, now: Double) throws -> Int {
        let handler = try SchedulerHandler(path: path, logger: Logger(label: "seed", level: .error), clock: { now })
        let hour = Int(now / 3600) % 24
        var stored = 0
        var pending: [Request] = []
        func flush() throws {
            try handler.storage.store.write { db in
                for request in pending {
                    _ = try handler.handle(.localAdd, request, in: db)
                    stored += 1
                }
            }
            pending.removeAll(keepingCapacity: true)
        }
        for device in 0..<devices {
            for index in 0..<perDevice {
                let add = LocalAdd(appKey: "bench", registrationID: Self.deviceID(device), identifier: "r\(index)",
                                   content: LocalContent(title: "Reminder \(index)", body: "Seeded request \(device)/\(index)",
                                                         badge: index),
                                   trigger: trigger(device: device, index: index, now: now, hour: hour))
                pending.append(Request(.localAdd, add))
                if pending.count == batch { try flush() }
            }
        }
        try flush()
        return stored
    }

    /// One request in ten watches a region; the rest are timed two hours to a few days ahead.
    private func trigger(device: Int, index: Int, now: Double, hour: Int) -> LocalTrigger {
        let spread = Double((device * perDevice + index) % 86_400)
        switch index % 10 {
        case 0, 1, 2: return LocalTrigger(timeInterval: 2 * 86_400 + spread)
        case 3, 4: return LocalTrigger(timeInterval: 2 * 86_400 + 60 * Double(index), repeats: true)
        case 5, 6:
            let components = CalendarComponents(weekday: (device + index) % 7 + 1, hour: (hour + 2 + device % 20) % 24,
                                                minute: index)
            return LocalTrigger(dateComponents: components, repeats: true, timezone: "UTC")
        case 7, 8:
            return LocalTrigger(fireDate: RFC3339.string(from: Date(timeIntervalSince1970: now + 3 * 86_400 + spread)))
        default:
            return LocalTrigger(region: LocalRegion(latitude: Double(device % 180) - 90, longitude: Double(index * 30 - 150),
                                                    radius: 500))
        }
    }
}
