import JSON

// A plan is stored with every message and read back by both halves of the fan-out (the expander for
// its audience, the builder for its payload), so a burst of fired local notifications, one message
// each, wrote and read thousands a second: through the Encoder and the Decoder that was a fifth of
// push's CPU. Here each part writes its own members (`FieldWritable`) and is read from its parsed
// tree (`TreeFields`): the same bytes as `encode(to:)` would write, the same checks and errors as the
// synthesized `init(from:)` had, which `PushPlanCodingTests` holds them to.

extension PushPlan: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(content, for: CodingKeys.content)
        fields.write(options, for: CodingKeys.options)
        fields.write(target, for: CodingKeys.target)
    }

    public init(from decoder: any Decoder) throws {
        let fields = try TreeFields(try decoder.singleValueContainer().decode(JSONValue.self), as: PushPlan.self, path: decoder.codingPath)
        try self.init(fields)
    }

    init(_ fields: TreeFields) throws {
        target = try PushTarget(try fields.object(required: CodingKeys.target, as: PushTarget.self))
        content = try PushContent(try fields.object(required: CodingKeys.content, as: PushContent.self))
        options = try PushOptions(try fields.object(required: CodingKeys.options, as: PushOptions.self))
    }
}

extension PushTarget: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.writeIfPresent(registrationIDs, for: CodingKeys.registrationIDs)
        fields.writeIfPresent(aliases, for: CodingKeys.aliases)
        fields.writeIfPresent(tags, for: CodingKeys.tags)
        fields.writeIfPresent(tagAnd, for: CodingKeys.tagAnd)
        fields.writeIfPresent(tagNot, for: CodingKeys.tagNot)
        fields.writeIfPresent(liveActivityID, for: CodingKeys.liveActivityID)
    }

    init(_ fields: TreeFields) throws {
        registrationIDs = try fields.strings(CodingKeys.registrationIDs)
        aliases = try fields.strings(CodingKeys.aliases)
        tags = try fields.strings(CodingKeys.tags)
        tagAnd = try fields.strings(CodingKeys.tagAnd)
        tagNot = try fields.strings(CodingKeys.tagNot)
        liveActivityID = try fields.string(CodingKeys.liveActivityID)
    }
}

extension PushContent: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.write(kind.rawValue, for: CodingKeys.kind)
        fields.write(payload, for: CodingKeys.payload)
        fields.writeIfPresent(badge, for: CodingKeys.badge)
        fields.writeIfPresent(pages, for: CodingKeys.pages)
        fields.writeIfPresent(expiresAt, for: CodingKeys.expiresAt)
    }

    init(_ fields: TreeFields) throws {
        kind = try fields.rawValue(required: CodingKeys.kind, as: PushKind.self)
        payload = try fields.tree(required: CodingKeys.payload)
        badge = try fields.string(CodingKeys.badge)
        pages = try fields.strings(CodingKeys.pages)
        expiresAt = try fields.double(CodingKeys.expiresAt)
    }
}

extension PushOptions: FieldWritable {
    public func write(fields: inout FieldWriter) {
        fields.writeIfPresent(timeToLive, for: CodingKeys.timeToLive)
        fields.writeIfPresent(apnsProduction, for: CodingKeys.apnsProduction)
        fields.writeIfPresent(collapseID, for: CodingKeys.collapseID)
        fields.write(bigPushDuration, for: CodingKeys.bigPushDuration)
        fields.writeIfPresent(cid, for: CodingKeys.cid)
        fields.write(notificationReminder, for: CodingKeys.notificationReminder)
    }

    init(_ fields: TreeFields) throws {
        timeToLive = try fields.int(CodingKeys.timeToLive)
        apnsProduction = try fields.bool(CodingKeys.apnsProduction)
        collapseID = try fields.string(CodingKeys.collapseID)
        bigPushDuration = try fields.int(required: CodingKeys.bigPushDuration)
        cid = try fields.string(CodingKeys.cid)
        notificationReminder = try fields.bool(required: CodingKeys.notificationReminder)
    }
}
