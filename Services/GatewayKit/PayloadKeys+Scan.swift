import Foundation
import JSON
import Schema

extension PayloadKeys {
    /// The keys read in place by `JSONScanner`, with no tree and no Codable: or nil when the payload
    /// needs the full decoder, which then gives the same keys or the error. Nil when the payload is
    /// outside the scanner's subset, names a key with an escape, or holds a key this type reads with
    /// a value the decoder would refuse or convert (an app_key that is not a string, a ts of 1.0).
    static func scan(_ payload: Data) -> PayloadKeys? {
        guard payload.count <= WireCodec.maxPayloadBytes else { return nil }
        return payload.withUnsafeBytes { bytes -> PayloadKeys? in
            var keys = PayloadKeys()
            var seen = Seen()
            var clean = true
            let scanned = JSONScanner.members(of: bytes) { member in
                guard clean, !member.keyHasEscape else {
                    clean = false
                    return
                }
                clean = keys.take(member, seen: &seen)
            }
            return scanned && clean ? keys : nil
        }
    }

    /// Which keys were read: a key given twice reads as its first, as the decoder reads it.
    fileprivate struct Seen: OptionSet {
        let rawValue: UInt8
        static let appKey = Seen(rawValue: 1), registrationID = Seen(rawValue: 2), ts = Seen(rawValue: 4)
        static let euid = Seen(rawValue: 8), deviceID = Seen(rawValue: 16), seq = Seen(rawValue: 32)
    }

    /// Takes `member` when it is a key this type reads and was not seen; false when only the
    /// decoder can say what it reads as.
    private mutating func take(_ member: JSONScanner.Member, seen: inout Seen) -> Bool {
        if member.isKey("app_key") {
            return take(member, .appKey, into: \.appKey, otherTypes: .refused, seen: &seen)
        } else if member.isKey("registration_id") {
            return take(member, .registrationID, into: \.registrationID, otherTypes: .refused, seen: &seen)
        } else if member.isKey("euid") {
            return take(member, .euid, into: \.euid, otherTypes: .absent, seen: &seen)
        } else if member.isKey("device_id") {
            return take(member, .deviceID, into: \.deviceID, otherTypes: .absent, seen: &seen)
        } else if member.isKey("ts") {
            guard seen.first(.ts), member.kind != .null else { return true }
            guard let value = member.integer else { return false }
            ts = value
        } else if member.isKey("seq") {
            guard seen.first(.seq), member.kind == .number else { return true }  // `try?`: another type reads as absent
            guard let value = member.integer, let int = Int(exactly: value) else { return false }
            seq = int
        }
        return true
    }

    /// Takes a string key into `field` the first time it is seen.
    private mutating func take(_ member: JSONScanner.Member, _ key: Seen, into field: WritableKeyPath<PayloadKeys, String?>,
                               otherTypes: OtherTypes, seen: inout Seen) -> Bool {
        guard seen.first(key) else { return true }
        guard let value = Self.text(member, otherTypes: otherTypes) else { return false }
        self[keyPath: field] = value
        return true
    }

    /// How the decoder reads a string key holding another type: as an error (`decodeIfPresent`,
    /// which for registration_id the decoder notes instead), or as absent (`try?`).
    private enum OtherTypes { case refused, absent }

    /// What a string key reads as (`.some(nil)` for null or an absent reading), or nil when only the
    /// decoder can tell: an escaped string, or another type it refuses.
    private static func text(_ member: JSONScanner.Member, otherTypes: OtherTypes) -> String?? {
        switch member.kind {
        case .string: return member.valueHasEscape ? nil : .some(member.string)
        case .null: return .some(nil)
        case .number, .other: return otherTypes == .absent ? .some(nil) : nil
        }
    }
}

private extension PayloadKeys.Seen {
    /// Marks `key` read; true the first time.
    mutating func first(_ key: PayloadKeys.Seen) -> Bool { insert(key).inserted }
}
