import Credentials

/// How `pushbus-replay run` replays a recording.
public struct ReplayOptions: Sendable {
    public var endpoint: String
    /// Requests in flight at most, over all connections.
    public var window: Int
    /// DEALER connections; a device's calls always use the same one, so they stay in order.
    public var connections: Int
    /// Multiple of the recorded pace; nil replays as fast as the window allows.
    public var speed: Double?
    /// Compare every reply with the recorded one.
    public var verify: Bool
    /// A request without a reply for this long counts as timed out.
    public var timeoutMilliseconds: Int
    /// Print a progress line every second to stderr.
    public var progress: Bool
    /// The gateway's CURVE public key when its endpoint requires encryption.
    public var serverKey: String?
    /// The deployment's secrets, to sign as the admin, any app and any device (a load tester runs
    /// on the operator's side).
    public var secrets: Secrets?
    /// A file of the IDs this stack gave for recorded ones (`ReplayIDs`): read before the run when
    /// it exists, written after it, so a recording replayed in parts maps them across runs.
    public var idsFile: String?
    /// The device edge's `host:port`: calls go as `POST /v1/device/<command>` over `connections`
    /// HTTP/1.1 keep-alive connections instead of MDP.
    public var edge: String?

    public init(endpoint: String, window: Int = 256, connections: Int = 4, speed: Double? = 1, verify: Bool = false,
                timeoutMilliseconds: Int = 30_000, progress: Bool = true, serverKey: String? = nil, secrets: Secrets? = nil,
                idsFile: String? = nil) {
        self.endpoint = endpoint
        self.window = window
        self.connections = connections
        self.speed = speed
        self.verify = verify
        self.timeoutMilliseconds = timeoutMilliseconds
        self.progress = progress
        self.serverKey = serverKey
        self.secrets = secrets
        self.idsFile = idsFile
    }
}
