/// Every device command of the catalog (reference/commands.md) and the service that owns it.
/// This table is how the gateway's virtual `device` service routes a request.
public enum Command: String, CaseIterable, Codable, Sendable {
    // registration
    case appCreate = "app.create"
    case appList = "app.list"
    case deviceRegister = "device.register"
    case deviceGet = "device.get"
    case deviceUpdate = "device.update"
    case deviceMobile = "device.mobile"
    case liveActivityStartToken = "device.live_activity_start_token"
    case liveActivityToken = "device.live_activity_token"
    case deviceDelete = "device.delete"
    // tagging
    case tagsAdd = "tags.add"
    case tagsSet = "tags.set"
    case tagsDelete = "tags.delete"
    case tagsClean = "tags.clean"
    case tagsGet = "tags.get"
    case tagsValid = "tags.valid"
    case aliasSet = "alias.set"
    case aliasDelete = "alias.delete"
    case aliasGet = "alias.get"
    case channelSubscribe = "channel.subscribe"
    case channelUnsubscribe = "channel.unsubscribe"
    case channelStatus = "channel.status"
    case channelReset = "channel.reset"
    case channelSync = "channel.sync"
    case audienceResolve = "audience.resolve"
    case tagsList = "tags.list"
    case tagsCount = "tags.count"
    case aliasLookup = "alias.lookup"
    // badge
    case badgeSet = "badge.set"
    case badgeReset = "badge.reset"
    case badgeGet = "badge.get"
    case badgeApply = "badge.apply"
    case badgeValues = "badge.values"
    // scheduler
    case localAdd = "local.add"
    case localRemove = "local.remove"
    case localFind = "local.find"
    case locationReport = "location.report"
    // analytics
    case maStart = "ma.start"
    case maIdentify = "ma.identify"
    case maContact = "ma.contact"
    case maEvents = "ma.events"
    case maProperty = "ma.property"
    case maChannelValue = "ma.channel_value"
    case maProfile = "ma.profile"
    case maErase = "ma.erase"
    case statsReport = "stats.report"
    case statsMessage = "stats.message"
    case statsEvents = "stats.events"
    // push
    case apnsCredentials = "apns.credentials"
    case pushSend = "push.send"
    case pushValidate = "push.validate"
    case pushStatus = "push.status"
    case pushDeviceStatus = "push.device_status"
    case pushWithdraw = "push.withdraw"
    case pushList = "push.list"
    case pushDeviceHistory = "push.device_history"
    case scheduleCreate = "schedule.create"
    case scheduleGet = "schedule.get"
    case scheduleUpdate = "schedule.update"
    case scheduleDelete = "schedule.delete"
    case scheduleList = "schedule.list"
    case scheduleMsgIDs = "schedule.msg_ids"
    // channel: live connections, undelivered messages, pages
    case devicesStatus = "devices.status"
    case pageEnter = "page.enter"
    case pageLeave = "page.leave"
    // PushBus's internal commands, between its own services (signed by a service or the admin)
    case deviceTokens = "device.tokens"
    case deviceTokensInvalid = "device.tokens_invalid"
    case apnsSend = "apns.send"
    case liveDeliver = "live.deliver"
    case liveAttach = "live.attach"
    case liveDetach = "live.detach"
    case liveAck = "live.ack"
    case liveMore = "live.more"
    case livePush = "live.push"
    case liveReset = "live.reset"

    /// The wire name, e.g. `tags.add`.
    public var name: String { rawValue }

    /// The service that owns this command.
    public var service: Service {
        switch self {
        case .appCreate, .appList, .deviceRegister, .deviceGet, .deviceUpdate, .deviceMobile,
             .liveActivityStartToken, .liveActivityToken, .deviceDelete, .deviceTokens, .deviceTokensInvalid:
            .registration
        case .tagsAdd, .tagsSet, .tagsDelete, .tagsClean, .tagsGet, .tagsValid,
             .aliasSet, .aliasDelete, .aliasGet,
             .channelSubscribe, .channelUnsubscribe, .channelStatus, .channelReset, .channelSync,
             .audienceResolve, .tagsList, .tagsCount, .aliasLookup:
            .tagging
        case .badgeSet, .badgeReset, .badgeGet, .badgeApply, .badgeValues:
            .badge
        case .localAdd, .localRemove, .localFind, .locationReport,
             .scheduleCreate, .scheduleGet, .scheduleUpdate, .scheduleDelete, .scheduleList, .scheduleMsgIDs:
            .scheduler
        case .maStart, .maIdentify, .maContact, .maEvents, .maProperty, .maChannelValue, .maProfile, .maErase,
             .statsReport, .statsMessage, .statsEvents:
            .analytics
        case .apnsCredentials, .pushSend, .pushValidate, .pushStatus, .pushDeviceStatus, .pushWithdraw, .pushList, .pushDeviceHistory:
            .push
        case .apnsSend:
            .apns
        case .devicesStatus, .pageEnter, .pageLeave, .liveDeliver, .liveAttach, .liveDetach, .liveAck, .liveMore, .livePush, .liveReset:
            .channel
        }
    }

    /// The commands a service owns.
    public static func owned(by service: Service) -> [Command] {
        allCases.filter { $0.service == service }
    }
}

extension Command {
    /// Commands that name no single device but query or change a whole app: signed by the app.
    public var isAppWide: Bool {
        switch self {
        case .audienceResolve, .tagsList, .tagsCount, .aliasLookup, .badgeApply, .badgeValues, .statsMessage, .statsEvents,
             .apnsCredentials, .pushSend, .pushValidate, .pushStatus, .pushDeviceStatus, .pushWithdraw, .pushList, .pushDeviceHistory,
             .deviceTokens, .deviceTokensInvalid, .devicesStatus, .liveDeliver, .liveAck, .liveReset:
            true
        case _ where isAppScoped: true
        default: false
        }
    }

    /// App-wide commands whose data lives with one shard, picked by the app key (an app's
    /// server-side schedules), rather than spread over every shard.
    public var isAppScoped: Bool {
        switch self {
        case .scheduleCreate, .scheduleGet, .scheduleUpdate, .scheduleDelete, .scheduleList, .scheduleMsgIDs: true
        default: false
        }
    }

    /// Commands outside the public catalog, which only PushBus's own services (or the admin) call:
    /// the push service asking registration for tokens and reporting dead ones, and handing
    /// notifications to an `apns` sender or messages to the device channel; channel processes
    /// telling a device's shard of its connection and acknowledgements, and handing a shard's
    /// messages to the process that holds the device's connection (`live.push`, sent to one shard
    /// by name).
    public var isInternal: Bool {
        switch self {
        case .deviceTokens, .deviceTokensInvalid, .apnsSend,
             .liveDeliver, .liveAttach, .liveDetach, .liveAck, .liveMore, .livePush, .liveReset: true
        default: false
        }
    }
}
