import HTTP

/// What one WebSocket server lets each connection do, and when it gives up on one. A value type the
/// server copies at `init`; changing it afterwards changes nothing.
///
/// What a connection can cost at most: in the process, `maxQueuedBytes` of output (rounded up to
/// whole pages, held only while bytes wait), `maxMessageBytes` of unfinished input,
/// `handshakeMemory` and a little of the loop's own state; in the kernel, about twice `sendBuffer`
/// (not counted in the process's resident size). A peer that never reads costs all of its output
/// until it is cut as a slow reader; once a connection ends its queue goes back to the system at
/// once, and the rest to the allocator.
public struct WebSocketLimits: Sendable, Equatable {
    /// The longest text message, fragments reassembled; a longer one closes with 1009, decided from
    /// the frame's length header before its payload is buffered.
    public var maxMessageBytes: Int
    /// The most one connection's outgoing queue holds, close and ping frames included: a data frame
    /// that would leave less than 256 bytes of it free marks the peer a slow reader, whose frames
    /// not yet begun are dropped before it is closed with 1008 "slow reader". The queue is a ring of
    /// this size, rounded up to whole pages, mapped from the system (not the heap) when the socket
    /// first leaves bytes to wait and unmapped within a second of draining or when the connection
    /// ends: a connection's output never costs the process more than this, an idle one nothing, and
    /// none of it stays with the allocator. (Before, packed frames grew by doubling and a slow
    /// reader of 1 KB messages held about 1.7 times this; what it freed tcmalloc kept.)
    public var maxQueuedBytes: Int
    /// Frames a connection may send per second, sustained; bursts of twice that pass. Past it: 1008
    /// "too many frames".
    public var framesPerSecond: Int
    /// Seconds a connection may stay silent before the server pings it.
    public var pingInterval: Double
    /// Seconds after a ping within which some frame must arrive, or the connection is dropped as dead
    /// (the delegate hears 1006).
    public var pongTimeout: Double
    /// Seconds the HTTP part (the handshake) may take from the connection's start, however slowly
    /// its bytes trickle in: past it the connection is cut.
    public var handshakeTimeout: Int
    /// Connections held at once, handshakes in progress included.
    public var maxConnections: Int
    /// Connections one client address may hold at once, handshakes and upgraded ones alike (phones
    /// behind a carrier's NAT share an address, so this is generous).
    public var perAddress: Int
    /// Bytes libmicrohttpd gives each connection for the request and response headers (a longer
    /// request is refused). MHD keeps this block for as long as the upgraded connection lives, so it
    /// is most of an idle connection's cost: 8 KiB costs about 9.5 KB per connection, 4 KiB about 5.4.
    public var handshakeMemory: Int
    /// The kernel's send buffer of each upgraded socket (SO_SNDBUF; 0 leaves the kernel's own, which
    /// grows to megabytes). Linux doubles the figure asked for, for its own bookkeeping: at 64 KiB a
    /// peer that does not read holds about 130 KB in the kernel (measured: 134 KB of Send-Q) before
    /// `maxQueuedBytes` starts to fill. Kernel memory: not in the process's resident size.
    public var sendBuffer: Int

    public init(maxMessageBytes: Int = 65_536, maxQueuedBytes: Int = 262_144, framesPerSecond: Int = 50,
                pingInterval: Double = 20, pongTimeout: Double = 10, handshakeTimeout: Int = 10,
                maxConnections: Int = 30_000, perAddress: Int = 1_000, handshakeMemory: Int = 8_192, sendBuffer: Int = 65_536) {
        self.maxMessageBytes = maxMessageBytes
        self.maxQueuedBytes = maxQueuedBytes
        self.framesPerSecond = framesPerSecond
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.handshakeTimeout = handshakeTimeout
        self.maxConnections = maxConnections
        self.perAddress = perAddress
        self.handshakeMemory = handshakeMemory
        self.sendBuffer = sendBuffer
    }

    /// What the HTTP server lets each connection do before its upgrade.
    var handshake: HTTPLimits {
        HTTPLimits(maxConnections: maxConnections, perAddress: perAddress, idleTimeoutSeconds: handshakeTimeout,
                   requestDeadlineSeconds: Double(handshakeTimeout), headerBytes: max(1_024, handshakeMemory), maxBodyBytes: 1_024)
    }
}
