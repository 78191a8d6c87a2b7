import JSON

// The payloads, replies and events of nearly every request (the tagging mix: tags, aliases; a
// device's registration), read and written with no Decoder or Encoder (`FieldReadable`,
// `FieldWritable`). Each reads and writes exactly the members its Codable conformance does;
// `FieldCodingTests` holds them to it.

extension TagsChange: FieldReadable {
    public init(fields: FieldReader) throws(FieldReader.Decline) {
        self.init(appKey: try fields.string(CodingKeys.appKey), registrationID: try fields.string(CodingKeys.registrationID),
                  tags: try fields.strings(CodingKeys.tags))
    }
}

extension DeviceRef: FieldReadable {
    public init(fields: FieldReader) throws(FieldReader.Decline) {
        self.init(appKey: try fields.string(CodingKeys.appKey), registrationID: try fields.string(CodingKeys.registrationID))
    }
}

extension TagCheck: FieldReadable {
    public init(fields: FieldReader) throws(FieldReader.Decline) {
        self.init(appKey: try fields.string(CodingKeys.appKey), registrationID: try fields.string(CodingKeys.registrationID),
                  tag: try fields.string(CodingKeys.tag))
    }
}

extension AliasSet: FieldReadable {
    public init(fields: FieldReader) throws(FieldReader.Decline) {
        self.init(appKey: try fields.string(CodingKeys.appKey), registrationID: try fields.string(CodingKeys.registrationID),
                  alias: try fields.string(CodingKeys.alias))
    }
}

extension DeviceRegister: FieldReadable {
    public init(fields: FieldReader) throws(FieldReader.Decline) {
        self.init(appKey: try fields.string(CodingKeys.appKey), platform: try fields.string(CodingKeys.platform),
                  deviceID: try fields.string(CodingKeys.deviceID), apnsToken: try fields.string(CodingKeys.apnsToken),
                  apnsProduction: try fields.bool(CodingKeys.apnsProduction), sdkVersion: try fields.string(CodingKeys.sdkVersion),
                  registrationID: try fields.string(CodingKeys.registrationID))
    }
}

extension DeviceRegisteredEvent: FieldReadable {
    public init(fields: FieldReader) throws(FieldReader.Decline) {
        guard let appKey = try fields.string(CodingKeys.appKey), let registrationID = try fields.string(CodingKeys.registrationID),
              let platform = try fields.string(CodingKeys.platform) else { throw FieldReader.Decline() }
        self.init(appKey: appKey, registrationID: registrationID, platform: platform)
    }
}

extension DeviceRegistered: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(registrationID, for: CodingKeys.registrationID)
        fields.write(isNew, for: CodingKeys.isNew)
        fields.writeIfPresent(deviceSecret, for: CodingKeys.deviceSecret)
    }
}

extension DeviceRegisteredEvent: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(appKey, for: CodingKeys.appKey)
        fields.write(registrationID, for: CodingKeys.registrationID)
        fields.write(platform, for: CodingKeys.platform)
    }
}

extension TagsReply: FieldWritable {
    public func write(fields: inout FieldWriter) { fields.write(tags, for: CodingKeys.tags) }
}

extension AliasReply: FieldWritable {
    public func write(fields: inout FieldWriter) { fields.write(alias, for: CodingKeys.alias) }
}

extension TagBinding: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(tag, for: CodingKeys.tag)
        fields.write(isBind, for: CodingKeys.isBind)
    }
}

extension TagsChangedEvent: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(appKey, for: CodingKeys.appKey)
        fields.write(registrationID, for: CodingKeys.registrationID)
        fields.write(added, for: CodingKeys.added)
        fields.write(removed, for: CodingKeys.removed)
    }
}

extension AliasChangedEvent: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(appKey, for: CodingKeys.appKey)
        fields.write(registrationID, for: CodingKeys.registrationID)
        fields.writeIfPresent(alias, for: CodingKeys.alias)
        fields.writeIfPresent(previous, for: CodingKeys.previous)
    }
}

extension Event: FieldReadable where Body: FieldReadable {
    public init(fields: FieldReader) throws(FieldReader.Decline) {
        guard let publisher = try fields.string(CodingKeys.publisher), let sequence = try fields.integer(CodingKeys.sequence),
              let time = try fields.string(CodingKeys.time) else { throw FieldReader.Decline() }
        self.init(publisher: publisher, sequence: Int64(sequence), epoch: try fields.string(CodingKeys.epoch), time: time,
                  body: try Body(fields: fields))
    }
}

extension Event: FieldWritable where Body: FieldWritable {
    public func write(fields: inout FieldWriter) {
        body.write(fields: &fields)
        fields.write(publisher, for: CodingKeys.publisher)
        fields.write(sequence, for: CodingKeys.sequence)
        fields.writeIfPresent(epoch, for: CodingKeys.epoch)
        fields.write(time, for: CodingKeys.time)
    }
}

// `apns.send`, the fan-out's largest request (a batch of notifications): written without the
// Encoder, which cost push an eighth of its CPU in a broadcast.
extension ApnsSend: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.writeIfPresent(appKey, for: CodingKeys.appKey)
        fields.writeIfPresent(credentials, for: CodingKeys.credentials)
        guard let notifications else { return }
        let common = ApnsCommon(of: notifications)
        fields.writeIfPresent(common, for: CodingKeys.common)
        fields.write(notifications.map { ApnsNotification.Item($0, common: common) }, for: CodingKeys.notifications)
    }
}

extension ApnsKey: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(teamID, for: CodingKeys.teamID)
        fields.write(keyID, for: CodingKeys.keyID)
        fields.write(p8, for: CodingKeys.p8)
    }
}

extension ApnsCommon: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(production, for: CodingKeys.production)
        fields.write(topic, for: CodingKeys.topic)
        fields.write(pushType, for: CodingKeys.pushType)
        fields.write(priority, for: CodingKeys.priority)
        fields.writeIfPresent(expiration, for: CodingKeys.expiration)
        fields.writeIfPresent(collapseID, for: CodingKeys.collapseID)
        fields.write(payload, for: CodingKeys.payload)
    }
}

extension ApnsNotification: FieldWritable {
    public func write(fields: inout FieldWriter) {
        Item(self, common: nil).write(fields: &fields)
    }
}

extension ApnsNotification.Item: FieldWritable {
    func write(fields: inout FieldWriter) {
        let n = notification
        fields.write(n.id, for: CodingKeys.id)
        fields.write(n.token, for: CodingKeys.token)
        fields.writeIfPresent(n.apnsID, for: CodingKeys.apnsID)
        if differs(.production) { fields.write(n.production, for: CodingKeys.production) }
        if differs(.topic) { fields.write(n.topic, for: CodingKeys.topic) }
        if differs(.pushType) { fields.write(n.pushType, for: CodingKeys.pushType) }
        if differs(.priority) { fields.write(n.priority, for: CodingKeys.priority) }
        // Against a common value, none is written as null; with no common, left out.
        if differs(.expiration) {
            if common == nil { fields.writeIfPresent(n.expiration, for: CodingKeys.expiration) } else { fields.write(n.expiration, for: CodingKeys.expiration) }
        }
        if differs(.collapseID) {
            if common == nil { fields.writeIfPresent(n.collapseID, for: CodingKeys.collapseID) } else { fields.write(n.collapseID, for: CodingKeys.collapseID) }
        }
        if differs(.payload) { fields.write(n.payload, for: CodingKeys.payload) }
    }
}

// `device.tokens`' answer: a page of a broadcast's devices (a thousand), each with its tokens;
// through the Encoder it was a third of registration's CPU in a broadcast.
extension DeviceTokensReply: FieldWritable {
    public func write(fields: inout FieldWriter) { fields.write(devices, for: CodingKeys.devices) }
}

extension DeviceTokens: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.writeIfPresent(apnsToken, for: CodingKeys.apnsToken)
        fields.write(apnsProduction, for: CodingKeys.apnsProduction)
        fields.writeIfPresent(voipToken, for: CodingKeys.voipToken)
        fields.writeIfPresent(liveActivityToken, for: CodingKeys.liveActivityToken)
        fields.writeIfPresent(authorization, for: CodingKeys.authorization)
    }
}

// `apns.send`'s answer: a result per notification, written by apns for every batch.
extension ApnsSent: FieldWritable {
    public func write(fields: inout FieldWriter) { fields.write(results, for: CodingKeys.results) }
}

extension ApnsResult: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(id, for: CodingKeys.id)
        fields.write(status, for: CodingKeys.status)
        fields.writeIfPresent(reason, for: CodingKeys.reason)
        fields.writeIfPresent(timestamp, for: CodingKeys.timestamp)
        fields.writeIfPresent(retryAfter, for: CodingKeys.retryAfter)
    }
}

// `local.fired`, one per fired local notification: a burst of thousands due in the same second is
// written by the scheduler, one event each, in the transaction that fires them.
extension LocalFiredEvent: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(appKey, for: CodingKeys.appKey)
        fields.write(registrationID, for: CodingKeys.registrationID)
        fields.write(identifier, for: CodingKeys.identifier)
        fields.write(content, for: CodingKeys.content)
        fields.write(firedAt, for: CodingKeys.firedAt)
        fields.writeIfPresent(nextFireAt, for: CodingKeys.nextFireAt)
    }
}

extension LocalContent: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.writeIfPresent(title, for: CodingKeys.title)
        fields.writeIfPresent(subtitle, for: CodingKeys.subtitle)
        fields.writeIfPresent(body, for: CodingKeys.body)
        fields.writeIfPresent(badge, for: CodingKeys.badge)
        fields.writeIfPresent(sound, for: CodingKeys.sound)
        fields.writeIfPresent(category, for: CodingKeys.category)
        if let userInfo { fields.write(JSONValue.object(JSONObject(userInfo)), for: CodingKeys.userInfo) }
    }
}

// `push.delivered`, one per message with new answers: as many as fired local notifications.
extension PushDeliveredEvent: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(appKey, for: CodingKeys.appKey)
        fields.write(msgID, for: CodingKeys.msgID)
        fields.write(sent, for: CodingKeys.sent)
        fields.write(failed, for: CodingKeys.failed)
    }
}
