import Foundation
import JSON
import Schema
import SQLite

/// The queries on what an EUID's profile holds: user properties and the app's property metadata,
/// contacts and channel values. Every method runs on the `Database` of the caller's transaction.
struct ProfileStore {
    // MARK: metadata

    func propertyType(_ db: Database, appKey: String, name: String) throws -> PropertyType? {
        try db.value("SELECT type FROM property_types WHERE app_key = ? AND name = ?", appKey, name)
            .string.flatMap(PropertyType.init(rawValue:))
    }

    func defineProperty(_ db: Database, appKey: String, name: String, type: PropertyType) throws {
        try db.run("INSERT INTO property_types (app_key, name, type) VALUES (?, ?, ?)", appKey, name, type.rawValue)
    }

    func subfieldType(_ db: Database, appKey: String, property: String, subfield: String) throws -> PropertyType? {
        try db.value("SELECT type FROM subfield_types WHERE app_key = ? AND property = ? AND subfield = ?",
                     appKey, property, subfield).string.flatMap(PropertyType.init(rawValue:))
    }

    func defineSubfield(_ db: Database, appKey: String, property: String, subfield: String, type: PropertyType) throws {
        try db.run("INSERT INTO subfield_types (app_key, property, subfield, type) VALUES (?, ?, ?, ?)",
                   appKey, property, subfield, type.rawValue)
    }

    // MARK: values

    func property(_ db: Database, euid: String, name: String) throws -> JSONValue? {
        try db.value("SELECT value FROM properties WHERE euid = ? AND name = ?", euid, name).string.map(Self.decode)
    }

    func setProperty(_ db: Database, euid: String, name: String, value: JSONValue) throws {
        try db.run("""
            INSERT INTO properties (euid, name, value) VALUES (?, ?, ?)
            ON CONFLICT (euid, name) DO UPDATE SET value = excluded.value
            """, euid, name, String(decoding: WireCodec.encode(value), as: UTF8.self))
    }

    func deleteProperty(_ db: Database, euid: String, name: String) throws {
        try db.run("DELETE FROM properties WHERE euid = ? AND name = ?", euid, name)
    }

    func properties(_ db: Database, euid: String) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for row in try db.rows("SELECT name, value FROM properties WHERE euid = ?", euid) {
            if let name = row[0].string, let text = row[1].string { result[name] = Self.decode(text) }
        }
        return result
    }

    // MARK: contacts and channels

    /// Stores a contact detail, or removes it when `value` is nil.
    func setContact(_ db: Database, euid: String, kind: String, value: String?) throws {
        if let value {
            try db.run("""
                INSERT INTO contacts (euid, kind, value) VALUES (?, ?, ?)
                ON CONFLICT (euid, kind) DO UPDATE SET value = excluded.value
                """, euid, kind, value)
        } else {
            try db.run("DELETE FROM contacts WHERE euid = ? AND kind = ?", euid, kind)
        }
    }

    func contacts(_ db: Database, euid: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try db.rows("SELECT kind, value FROM contacts WHERE euid = ?", euid) {
            if let kind = row[0].string { result[kind] = row[1].string }
        }
        return result
    }

    func setChannel(_ db: Database, euid: String, channelID: Int, values: [String]) throws {
        try db.run("""
            INSERT INTO channel_values (euid, channel_id, value_list) VALUES (?, ?, ?)
            ON CONFLICT (euid, channel_id) DO UPDATE SET value_list = excluded.value_list
            """, euid, channelID, String(decoding: WireCodec.encode(values), as: UTF8.self))
    }

    /// channel_id (as text) → values.
    func channels(_ db: Database, euid: String) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for row in try db.rows("SELECT channel_id, value_list FROM channel_values WHERE euid = ?", euid) {
            guard let id = row[0].int, let text = row[1].string else { continue }
            result[String(id)] = (try? JSONTreeDecoder().decode([String].self, from: Data(text.utf8))) ?? []
        }
        return result
    }

    private static func decode(_ text: String) -> JSONValue {
        (try? JSONTreeDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .null
    }
}
