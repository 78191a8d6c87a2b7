import Foundation

/// What `PushBusService.setup` takes: the seed's `setupWithOption:appKey:channel:apsForProduction:`
/// plus where PushBus is (the device edge's `https://host:port`, and the device channel's
/// `wss://host:port/v1/channel`), where the SDK keeps its state, and, for a private CA, its PEM file.
public struct PushBusConfiguration: Sendable {
    public var appKey: String
    public var channel: String
    public var isProduction: Bool
    /// The device edge: `https://push.example.com` (api, base port + 4, or the public ingress).
    public var server: URL
    /// The device channel: `wss://push.example.com/v1/channel`; nil for no live connection.
    public var channelURL: URL?
    /// Where the registration and the queue of commands not yet answered are kept (a 0600 file each).
    public var stateDirectory: URL
    /// PEM certificates to trust instead of the system's (a test or private CA).
    public var caFile: String?
    /// The SDK version reported at registration.
    public var sdkVersion = "pushbus-sdk-1.0"

    public init(appKey: String, channel: String = "", isProduction: Bool = false, server: URL, channelURL: URL? = nil,
                stateDirectory: URL, caFile: String? = nil) {
        self.appKey = appKey
        self.channel = channel
        self.isProduction = isProduction
        self.server = server
        self.channelURL = channelURL
        self.stateDirectory = stateDirectory
        self.caFile = caFile
    }
}
