import Caches
import Credentials

/// The proofs seen within the clock window, so the same signed request cannot be played twice.
/// Entries older than the window are swept as the cache grows; a proof that old is refused by its
/// timestamp anyway.
struct ReplayCache {
    let window: Int64
    /// Each proof by the first 64 bits of its signature (an HMAC: uniform, and unforgeable without
    /// the key), which costs 16 bytes an entry instead of a 64-character string's 100 or so; the
    /// gateway holds every proof of the last five minutes.
    private var seen = SweptDictionary<UInt64, Int64>()

    init(window: Int64) { self.window = window }

    /// Records `signature` (hex) made at `ts`; false when it was seen before.
    mutating func insert(_ signature: String, ts: Int64, now: Int64) -> Bool {
        guard seen.updateValue(ts, forKey: Self.key(signature)) == nil else { return false }
        seen.sweepIfLarge { now - $0 <= window }
        return true
    }

    static func key(_ signature: String) -> UInt64 { Proof.fingerprint(signature) }
}
