// Payloads and replies of the `registration` service (reference/commands.md).

/// `app.create` (admin): a new app for this deployment. `app_key` may be given to adopt the key an
/// app already ships in its SDK configuration; creating an existing app again answers its secret.
public struct AppCreate: Codable, Equatable, Sendable {
    public var name: String?
    public var appKey: String?
    public init(name: String?, appKey: String? = nil) {
        self.name = name
        self.appKey = appKey
    }
    enum CodingKeys: String, CodingKey { case name, appKey = "app_key" }
}

public struct AppCreated: Codable, Equatable, Sendable {
    public var appKey: String
    public var masterSecret: String
    public init(appKey: String, masterSecret: String) {
        self.appKey = appKey
        self.masterSecret = masterSecret
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", masterSecret = "master_secret" }
}

/// `app.list` (the admin): the deployment's apps by app_key, `limit` (1...500, 100) after `after`.
public struct AppListQuery: Codable, Equatable, Sendable {
    public var after: String?
    public var limit: Int?
    public init(after: String? = nil, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }
}

public struct AppSummary: Codable, Equatable, Sendable {
    public var appKey: String
    public var name: String
    public var createdAt: String
    public init(appKey: String, name: String, createdAt: String) {
        self.appKey = appKey
        self.name = name
        self.createdAt = createdAt
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", name, createdAt = "created_at" }
}

public struct AppList: Codable, Equatable, Sendable {
    public var apps: [AppSummary]
    /// The `after` of the next page; absent on the last.
    public var next: String?
    public init(apps: [AppSummary], next: String?) {
        self.apps = apps
        self.next = next
    }
}

/// `device.register`: a first registration goes unsigned and gets a new registration ID (an
/// app_key + device_id already registered is refused, 1008). Re-registering a device names its
/// `registration_id` and is signed by that device or its app: the same ID comes back and the tokens
/// are refreshed.
public struct DeviceRegister: Codable, Equatable, Sendable {
    public var appKey: String?
    public var platform: String?
    public var deviceID: String?
    public var apnsToken: String?
    public var apnsProduction: Bool?
    public var sdkVersion: String?
    /// The device re-registering; nil for a first registration.
    public var registrationID: String?

    public init(appKey: String?, platform: String?, deviceID: String? = nil, apnsToken: String? = nil,
                apnsProduction: Bool? = nil, sdkVersion: String? = nil, registrationID: String? = nil) {
        self.appKey = appKey
        self.platform = platform
        self.deviceID = deviceID
        self.apnsToken = apnsToken
        self.apnsProduction = apnsProduction
        self.sdkVersion = sdkVersion
        self.registrationID = registrationID
    }

    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", platform, deviceID = "device_id", apnsToken = "apns_token"
        case apnsProduction = "apns_production", sdkVersion = "sdk_version", registrationID = "registration_id"
    }
}

public struct DeviceRegistered: Codable, Equatable, Sendable {
    public var registrationID: String
    public var isNew: Bool
    /// The key the device signs its requests with (DESIGN.md, Security).
    public var deviceSecret: String?
    public init(registrationID: String, isNew: Bool, deviceSecret: String? = nil) {
        self.registrationID = registrationID
        self.isNew = isNew
        self.deviceSecret = deviceSecret
    }
    enum CodingKeys: String, CodingKey { case registrationID = "registration_id", isNew = "is_new", deviceSecret = "device_secret" }
}

/// The payload of every command that names one device and nothing else:
/// `device.get`, `device.delete`, and elsewhere `tags.clean`, `badge.get`, …
public struct DeviceRef: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public init(appKey: String?, registrationID: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id" }
}

/// Everything stored about a device, as `device.get` returns it.
public struct Device: Codable, Equatable, Sendable {
    public var registrationID: String
    public var appKey: String
    public var platform: String
    public var deviceID: String?
    public var apnsToken: String?
    public var apnsProduction: Bool
    public var sdkVersion: String?
    public var voipToken: String?
    public var language: String?
    public var timezone: String?
    public var mobile: String?
    /// `granted`, `denied` or `provisional`, as the device last reported it; nil before it did.
    public var notificationAuthorization: String?
    /// activity_attributes → push-to-start token
    public var liveActivityStartTokens: [String: String]
    /// live_activity_id → push token
    public var liveActivityTokens: [String: String]
    public var createdAt: String
    public var updatedAt: String

    public init(registrationID: String, appKey: String, platform: String, deviceID: String? = nil,
                apnsToken: String? = nil, apnsProduction: Bool = false, sdkVersion: String? = nil,
                voipToken: String? = nil, language: String? = nil, timezone: String? = nil,
                mobile: String? = nil, liveActivityStartTokens: [String: String] = [:],
                liveActivityTokens: [String: String] = [:], createdAt: String, updatedAt: String) {
        self.registrationID = registrationID
        self.appKey = appKey
        self.platform = platform
        self.deviceID = deviceID
        self.apnsToken = apnsToken
        self.apnsProduction = apnsProduction
        self.sdkVersion = sdkVersion
        self.voipToken = voipToken
        self.language = language
        self.timezone = timezone
        self.mobile = mobile
        self.notificationAuthorization = nil
        self.liveActivityStartTokens = liveActivityStartTokens
        self.liveActivityTokens = liveActivityTokens
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case registrationID = "registration_id", appKey = "app_key", platform, deviceID = "device_id"
        case apnsToken = "apns_token", apnsProduction = "apns_production", sdkVersion = "sdk_version"
        case voipToken = "voip_token", language, timezone, mobile, notificationAuthorization = "notification_authorization"
        case liveActivityStartTokens = "live_activity_start_tokens", liveActivityTokens = "live_activity_tokens"
        case createdAt = "created_at", updatedAt = "updated_at"
    }
}

public struct DeviceInfo: Codable, Equatable, Sendable {
    public var device: Device
    public init(device: Device) { self.device = device }
}

/// `device.update`: any of the fields; `voip_token: null` unregisters the VoIP token.
public struct DeviceUpdate: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var apnsToken: String?
    public var voipToken: Patch<String>
    public var language: String?
    public var timezone: String?
    /// Whether the device's user lets the app show notifications: `granted`, `denied` or
    /// `provisional` (a push with `notification_reminder` reaches a denied device over the channel).
    public var notificationAuthorization: String?

    public init(appKey: String?, registrationID: String?, apnsToken: String? = nil,
                voipToken: Patch<String> = .absent, language: String? = nil, timezone: String? = nil,
                notificationAuthorization: String? = nil) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.apnsToken = apnsToken
        self.voipToken = voipToken
        self.language = language
        self.timezone = timezone
        self.notificationAuthorization = notificationAuthorization
    }

    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", apnsToken = "apns_token"
        case voipToken = "voip_token", language, timezone, notificationAuthorization = "notification_authorization"
    }
}

/// `device.mobile`: null or "" unbinds.
public struct DeviceMobile: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var mobile: String?
    public init(appKey: String?, registrationID: String?, mobile: String?) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.mobile = mobile
    }
    enum CodingKeys: String, CodingKey { case appKey = "app_key", registrationID = "registration_id", mobile }
}

/// `device.live_activity_start_token`: a push-to-start token for an attributes type; null removes it.
public struct LiveActivityStartToken: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var activityAttributes: String?
    public var token: Patch<String>

    public init(appKey: String?, registrationID: String?, activityAttributes: String?, token: Patch<String>) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.activityAttributes = activityAttributes
        self.token = token
    }

    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id"
        case activityAttributes = "activity_attributes", token
    }
}

public struct LiveActivityStartTokenSaved: Codable, Equatable, Sendable {
    public var activityAttributes: String
    public init(activityAttributes: String) { self.activityAttributes = activityAttributes }
    enum CodingKeys: String, CodingKey { case activityAttributes = "activity_attributes" }
}

/// `device.live_activity_token`: the push token of one Live Activity (id ≤ 24 bytes); null removes it.
public struct LiveActivityToken: Codable, Equatable, Sendable {
    public var appKey: String?
    public var registrationID: String?
    public var liveActivityID: String?
    public var token: Patch<String>

    public init(appKey: String?, registrationID: String?, liveActivityID: String?, token: Patch<String>) {
        self.appKey = appKey
        self.registrationID = registrationID
        self.liveActivityID = liveActivityID
        self.token = token
    }

    enum CodingKeys: String, CodingKey {
        case appKey = "app_key", registrationID = "registration_id", liveActivityID = "live_activity_id", token
    }
}

public struct LiveActivityTokenSaved: Codable, Equatable, Sendable {
    public var liveActivityID: String
    public init(liveActivityID: String) { self.liveActivityID = liveActivityID }
    enum CodingKeys: String, CodingKey { case liveActivityID = "live_activity_id" }
}
