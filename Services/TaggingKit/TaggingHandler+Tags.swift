import Runtime
import Schema
import SQLite

/// Tags and aliases of one device.
extension TaggingHandler {
    enum TagChange { case add, set, delete }

    /// `tags.add` adds, `tags.set` replaces all, `tags.delete` removes. Checks in the public order:
    /// null → charset → length → count → total bytes → rate → device cap (6018).
    func changeTags(_ p: TagsChange, _ change: TagChange, in db: Database) throws -> TagsReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let names = try TagRules.validateTags(p.tags)
        try countSet(keys.id)
        let device = try devices.entry(db, registrationID: keys.id, appKey: keys.app)
        let held = device.tags
        let bound = Set(held)
        var added: [String] = []
        var removed: [String] = []
        switch change {
        case .add:
            added = try tags.bind(db, device: device.id, appKey: keys.app, names: names.filter { !bound.contains($0) })
        case .set:
            let keep = Set(names)
            removed = try tags.unbind(db, device: device.id, appKey: keys.app, names: held.filter { !keep.contains($0) })
            added = try tags.bind(db, device: device.id, appKey: keys.app, names: names.filter { !bound.contains($0) })
        case .delete:
            removed = try tags.unbind(db, device: device.id, appKey: keys.app, names: names.filter { bound.contains($0) })
        }
        let count = held.count + added.count - removed.count
        guard count <= TagRules.maxTagsPerDevice else {
            throw CommandError(.deviceTagLimit, "the device would hold \(count) tags; at most \(TagRules.maxTagsPerDevice)")
        }
        if !added.isEmpty || !removed.isEmpty {
            try tags.setNames(db, device: device.id, to: bound.subtracting(removed).union(added))
            try announce(db, keys, added: added, removed: removed)
        }
        return TagsReply(tags: names)
    }

    func cleanTags(_ p: DeviceRef, in db: Database) throws -> TagsReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        try countSet(keys.id)
        if let device = try knownDevice(db, app: keys.app, id: keys.id) {
            try announce(db, keys, added: [], removed: try tags.removeAll(db, device: device))
        }
        return TagsReply(tags: nil)
    }

    func getTags(_ p: DeviceRef, in db: Database) throws -> TagsReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        return TagsReply(tags: try knownDevice(db, app: keys.app, id: keys.id)?.tags ?? [])
    }

    func checkTag(_ p: TagCheck, in db: Database) throws -> TagBinding {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let tag = try TagRules.validateTag(p.tag)
        return TagBinding(tag: tag, isBind: try knownDevice(db, app: keys.app, id: keys.id)?.tags.contains(tag) ?? false)
    }

    /// One alias per device; an alias holds at most `aliasMaxDevices` devices (6017 past it).
    func setAlias(_ p: AliasSet, in db: Database) throws -> AliasReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        let alias = try TagRules.validateAlias(p.alias)
        try countSet(keys.id)
        let device = try devices.entry(db, registrationID: keys.id, appKey: keys.app)
        guard device.alias != alias else { return AliasReply(alias: alias) }
        guard try devices.countDevices(db, appKey: keys.app, alias: alias) < aliasMaxDevices else {
            throw CommandError(.invalidRequest, "alias is already bound to \(aliasMaxDevices) devices, the most allowed")
        }
        try devices.setAlias(db, device: device.id, alias: alias)
        try outbox.append(AliasChangedEvent(appKey: keys.app, registrationID: keys.id, alias: alias, previous: device.alias), in: db)
        return AliasReply(alias: alias)
    }

    func deleteAlias(_ p: DeviceRef, in db: Database) throws -> AliasReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        try countSet(keys.id)
        if let device = try knownDevice(db, app: keys.app, id: keys.id), let previous = device.alias {
            try devices.setAlias(db, device: device.id, alias: nil)
            try outbox.append(AliasChangedEvent(appKey: keys.app, registrationID: keys.id, alias: nil, previous: previous), in: db)
        }
        return AliasReply(alias: nil)
    }

    func getAlias(_ p: DeviceRef, in db: Database) throws -> AliasReply {
        let keys = try deviceKeys(p.appKey, p.registrationID)
        return AliasReply(alias: try knownDevice(db, app: keys.app, id: keys.id)?.alias)
    }

    /// Publishes `tags.changed` when anything changed.
    private func announce(_ db: Database, _ keys: (app: String, id: String), added: [String], removed: [String]) throws {
        guard !added.isEmpty || !removed.isEmpty else { return }
        try outbox.append(TagsChangedEvent(appKey: keys.app, registrationID: keys.id, added: added, removed: removed), in: db)
    }
}
