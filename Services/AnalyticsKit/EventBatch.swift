import Foundation
import Schema
import WireTime

/// An `ma.events` batch checked event by event: the events to store, and the ones refused with why.
/// The whole batch is refused only when its own shape is wrong (no events, more than 500, bad UTM).
struct EventBatch {
    /// One event ready to store.
    struct Checked: Equatable {
        let name: String
        let time: Double
        /// The properties as JSON text, nil when there are none.
        let properties: String?
    }

    /// The SDK flushes at 50..500 cached events; a batch holds at most 500.
    static let maxEvents = 500
    static let maxNameBytes = 128
    static let utmKeys: Set<String> = ["utm_source", "utm_medium", "utm_term", "utm_content", "utm_campaign", "utm_id"]

    var events: [Checked] = []
    var rejected: [MARejectedEvent] = []
    /// The batch's UTM properties as JSON text, stored with each event; nil when none.
    var utm: String?

    /// `now` (Unix seconds) stands in for an event without `time`.
    init(_ p: EventsPayload, now: Double) throws(CommandError) {
        guard let events = p.events, !events.isEmpty else { throw .empty("events is missing or empty") }
        guard events.count <= Self.maxEvents else {
            throw .invalid("\(events.count) events in one batch; at most \(Self.maxEvents)")
        }
        utm = try Self.utm(p.utm)
        for (index, event) in events.enumerated() {
            do throws(CommandError) {
                self.events.append(try Self.check(event, now: now))
            } catch {
                rejected.append(MARejectedEvent(index: index, code: error.code, message: error.message))
            }
        }
    }

    /// An event name: an ASCII letter, then letters, digits, `_`, `-` or `.`, at most 128 bytes.
    /// (Names starting with `$` are the service's own counters in `stats.events`.)
    static func name(_ name: String?) throws(CommandError) -> String {
        guard let name, !name.isEmpty else { throw .empty("event name is missing") }
        let bytes = Array(name.utf8)
        guard bytes.count <= maxNameBytes, isLetter(bytes[0]),
              bytes.allSatisfy({ isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D || $0 == 0x2E }) else {
            throw .invalid("event name \(name.prefix(64)) must start with a letter and hold only letters, digits, _, - or . (at most 128 bytes)")
        }
        return name
    }

    private static func check(_ event: EventsPayload.Event, now: Double) throws(CommandError) -> Checked {
        let name = try name(event.name)
        var time = now
        if let text = event.time {
            guard let parsed = RFC3339.seconds(from: text), parsed >= 0 else {
                throw .invalid("event time \(text.prefix(40)) is not an RFC 3339 time after 1970")
            }
            time = parsed
        }
        guard let properties = event.properties, !properties.isEmpty else { return Checked(name: name, time: time, properties: nil) }
        if let bad = properties.badName {
            throw .invalid("event property name \(bad.prefix(64)) must be 1..128 bytes")
        }
        return Checked(name: name, time: time, properties: properties.text)
    }

    private static func utm(_ utm: [String: String]?) throws(CommandError) -> String? {
        guard let utm, !utm.isEmpty else { return nil }
        if let unknown = utm.keys.sorted().first(where: { !utmKeys.contains($0) }) {
            throw .invalid("unknown UTM property \(unknown.prefix(64)); use " + utmKeys.sorted().joined(separator: ", "))
        }
        if let long = utm.first(where: { $0.value.utf8.count > 256 }) { throw .invalid("\(long.key) is longer than 256 bytes") }
        return String(decoding: WireCodec.encode(utm), as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
