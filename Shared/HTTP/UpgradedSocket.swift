import CMicroHTTPD

/// A connection handed over after `101 Switching Protocols`: its descriptor, the handle that is the
/// only way to close it (it belongs to libmicrohttpd: never close(2) it), the bytes the client sent
/// past the handshake, and the client's address and port ("192.0.2.1:50000"). Over TLS the descriptor is the plain end of a pair
/// libmicrohttpd relays through TLS, so the new owner reads and writes plain bytes either way.
public struct UpgradedSocket: Sendable {
    public let fd: Int32
    /// The upgrade handle's address (an `MHD_UpgradeResponseHandle`), kept as a number so the value
    /// can cross threads: libmicrohttpd's upgrade actions may be called from any thread.
    private let handleAddress: UInt
    public let extra: [UInt8]
    public let peer: String

    init(fd: Int32, handle: OpaquePointer, extra: [UInt8], peer: String) {
        self.fd = fd
        handleAddress = UInt(bitPattern: handle)
        self.extra = extra
        self.peer = peer
    }

    /// The handle libmicrohttpd closes the socket by.
    public var handle: OpaquePointer { OpaquePointer(bitPattern: handleAddress)! }

    /// Gives the socket back to libmicrohttpd, which closes it. Callable from any thread, once.
    public func close() { _ = pushbus_mhd_upgrade_close(handle) }
}
