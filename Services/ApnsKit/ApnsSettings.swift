import Runtime

/// The apns sender's own settings, from flags or `PUSHBUS_*` variables.
public struct ApnsSettings: Options {
    /// Production APNs; with a stand-in, its URL.
    public var productionURL = "https://api.push.apple.com"
    /// The sandbox; unless set, the sandbox of Apple, or `--apns-url` when that was given.
    public var sandboxURL: String?
    /// A CA bundle to trust instead of the system's (a local stand-in's self-signed certificate).
    public var caFile: String?
    /// Seconds a notification may wait to be written to APNs before it is reported NotSent; one
    /// written is waited for up to `streamTimeoutSeconds`.
    public var requestTimeoutSeconds = 10
    /// Seconds one stream may take at APNs on a live connection before it is reset and reported Lost.
    public var streamTimeoutSeconds = 30
    /// Concurrent streams on one connection (APNs' own setting wins when lower).
    public var maxStreams = 1000
    /// Connections to one APNs host at most; another opens only when every stream of the open ones is busy.
    public var connections = 4

    public static let appleSandbox = "https://api.sandbox.push.apple.com"
    public static let appleProduction = "https://api.push.apple.com"

    public init() {}

    /// The base URL for a device registered for production or the sandbox.
    public func baseURL(production: Bool) -> String {
        if production { return productionURL }
        return sandboxURL ?? (productionURL == Self.appleProduction ? Self.appleSandbox : productionURL)
    }

    public static let options: [Option<ApnsSettings>] = [
        .string("apns-url", \.productionURL, help: "APNs' production endpoint; point it at a local stand-in to test (then the sandbox goes there too unless --apns-sandbox-url says otherwise)."),
        .optional("apns-sandbox-url", \.sandboxURL, help: "APNs' sandbox endpoint (default https://api.sandbox.push.apple.com, or --apns-url when given)."),
        .optional("apns-ca-file", \.caFile, help: "A PEM file of CA certificates to trust for APNs instead of the system's: how a local stand-in's self-signed certificate is trusted."),
        .int("apns-timeout", \.requestTimeoutSeconds, in: 1...120,
             help: "Seconds a notification may wait to be written to APNs before it is reported NotSent (retried); one already written is waited for until APNs answers or the connection is found dead."),
        .int("apns-stream-timeout", \.streamTimeoutSeconds, in: 1...600,
             help: "Seconds one notification may take at APNs on a live connection (PINGs tell a dead one sooner) before it is reset and reported Lost (retried, and the one case that may reach the device twice)."),
        .int("apns-streams", \.maxStreams, in: 1...1000, help: "Concurrent HTTP/2 streams on one APNs connection (APNs' own setting wins when lower)."),
        .int("apns-connections", \.connections, in: 1...64,
             help: "Connections to one APNs host at most: another opens only when every stream of the open ones is busy."),
    ]
}
