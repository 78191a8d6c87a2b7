import Runtime
import Foundation
import Majordomo
import Schema

/// Unsigned registrations per peer address at the gateway (`--register-rate`, `--register-burst`):
/// `device.register` is the one command no proof vouches for, so it is limited by where it comes
/// from, and past the limit answered 6011. The broker reads a message's peer address only when
/// `mayBeUnsignedRegistration` says so of its frames, so other requests pay nothing for it.
struct RegistrationRateLimit {
    private var buckets: TokenBuckets<PeerKey>

    init(perSecond: Int, burst: Int) { buckets = TokenBuckets(perSecond: perSecond, burst: burst) }

    /// Takes a token for the peer at `address` (libzmq's `Peer-Address`; nil when it has none).
    mutating func allow(peer address: String?, now: Int64) -> Bool {
        buckets.allow(PeerKey(address: address), now: now)
    }

    private static let command = Data(Command.deviceRegister.name.utf8)

    /// Whether a ROUTER message may be an unsigned registration: `[sender, "", MDPC01, service,
    /// "device.register", payload]`. A signed request has a seventh frame. Two comparisons.
    static func mayBeUnsignedRegistration(_ frames: [Data]) -> Bool {
        frames.count == 6 && frames[4] == command && frames[2] == MDP.client
    }
}
