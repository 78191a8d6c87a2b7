import Runtime

/// pushctl's settings, from flags or `PUSHBUS_*` variables; each property's initial value is its
/// flag's default.
struct PushCtlOptions: Options {
    var endpoint = DefaultEndpoints.request
    var appKey: String?
    var platform = "ios"
    var deviceID: String?
    var registrationID: String?
    var timeoutMilliseconds = 10_000
    /// `probe`: the shard whose worker to look for.
    var shard = ShardLayout()
    var curveServerKey: String?
    var dataDirectory = "./data"
    var masterSecret: String?
    var deviceSecret: String?
    var json = false

    init() {}

    static let options: [Option<PushCtlOptions>] = [
        .string("endpoint", \.endpoint, help: "The gateway's request endpoint."),
        .optional("app-key", \.appKey, help: "The app_key device commands carry."),
        .string("platform", \.platform, help: "Platform for register."),
        .optional("device-id", \.deviceID, help: "Stable install id for register (registered once; re-register it with --registration-id)."),
        .optional("registration-id", \.registrationID,
                  help: "register: re-register this device (signed as the device), same ID, tokens refreshed."),
        .int("timeout-ms", \.timeoutMilliseconds, in: 1...3_600_000, help: "How long to wait for a reply, in milliseconds."),
        .int("shard-index", \.shard.index, in: 0...(ShardMap.limit - 1), help: "probe: the shard to check, 0-based."),
        .int("shard-count", \.shard.count, in: 1...ShardMap.limit, help: "probe: how many shards the service runs."),
        .optional("curve-server-key", \.curveServerKey, help: "The gateway's CURVE public key (Z85), when it requires encryption."),
        .string("data-dir", \.dataDirectory, help: "On the operator's machine: where admin.secret and server.key are, to sign any request."),
        .optional("master-secret", \.masterSecret, help: "The app's master secret (with --app-key), to sign app-wide queries."),
        .optional("device-secret", \.deviceSecret, help: "The device's secret, to sign commands for the registration ID given."),
        .switch("json", \.json, help: "Print the raw JSON reply instead of key: value lines."),
    ]
}
