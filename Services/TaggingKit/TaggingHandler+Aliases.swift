import Schema
import SQLite

/// The alias of one device.
extension TaggingHandler {
    /// One alias per device; an alias holds at most `aliasMaxDevices` devices (6017 past it).
    func setAlias(_ p: AliasSet, in db: Database) throws -> AliasReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let alias = try TagRules.validateAlias(p.alias)
        try countSet(keys.id)
        let existing = try devices.existing(db, registrationID: keys.id, appKey: keys.app, mayCreate: !signedByApp)
        guard existing?.alias != alias else { return AliasReply(alias: alias) }
        guard try devices.countDevices(db, appKey: keys.app, alias: alias) < aliasMaxDevices else {
            throw CommandError(.invalidRequest, "alias is already bound to \(aliasMaxDevices) devices, the most allowed")
        }
        // A new device's entry is made only now, past the last refusal: a batch has nothing to undo.
        let device = try existing ?? devices.create(db, registrationID: keys.id, appKey: keys.app)
        try devices.setAlias(db, device: device, alias: alias)
        try outbox.append(AliasChangedEvent(appKey: keys.app, registrationID: keys.id, alias: alias, previous: device.alias), in: db)
        return AliasReply(alias: alias)
    }

    func deleteAlias(_ p: DeviceRef, in db: Database) throws -> AliasReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        try countSet(keys.id)
        if let device = try knownDevice(db, app: keys.app, id: keys.id), let previous = device.alias {
            try devices.setAlias(db, device: device, alias: nil)
            try outbox.append(AliasChangedEvent(appKey: keys.app, registrationID: keys.id, alias: nil, previous: previous), in: db)
        }
        return AliasReply(alias: nil)
    }

    func getAlias(_ p: DeviceRef, in db: Database) throws -> AliasReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        return AliasReply(alias: try knownDevice(db, app: keys.app, id: keys.id)?.alias)
    }
}
