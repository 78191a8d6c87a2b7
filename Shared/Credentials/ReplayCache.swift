/// The proofs seen within the clock window, so the same signed request cannot be played twice.
///
/// Proofs are kept in one set per `sliceSeconds` of their `ts` (a replay carries the same `ts`, so
/// it lands in the same set). A slice whose every `ts` is past the window is dropped whole, which
/// frees one buffer: nothing is ever copied or filtered entry by entry. The gateway holds every
/// proof of the last five minutes, 2.8 million at 9,300 requests a second; a single dictionary
/// swept by filtering, and rehashed as it doubled, stopped the gateway for tens of milliseconds
/// each time it crossed 200,000, 400,000 and 800,000 entries (the stack benchmark's half-rate p99).
/// A slice is one second: a slice of ten, 100,000 proofs at 10,000 requests a second, still held
/// the gateway and the tagging worker up for milliseconds each time it doubled. The slice of the
/// current second is made with room for as many proofs as the slice before it held, so in steady
/// state no slice grows by rehashing either. (Not the largest slice held: one crowded slice, say
/// every proof of one device stamped with a ts 300 s ahead, would have made every slice for the
/// next ten minutes reserve its size.) Each service's `ProofLedger` keeps one too, in front of its
/// log of proofs on disk.
public struct ReplayCache {
    public let window: Int64
    public static let sliceSeconds: Int64 = 1
    /// How far the clock may step back (an NTP correction) without a proof at the window's edge
    /// being taken again: proofs are kept this much longer than the window. (Slices of ten seconds
    /// kept 0-9 s more by rounding, depending on the second.)
    public static let stepBackSeconds: Int64 = 10

    /// Each proof by the first 64 bits of its signature (an HMAC: uniform, and unforgeable without
    /// the key), 8 bytes an entry instead of a 64-character string's 100 or so, under its slice.
    private var slices: [Int64: Set<UInt64>] = [:]
    private var sweptAt = Int64.min

    public init(window: Int64) { self.window = window }

    /// Records `signature` (hex) made at `ts`; false when it was seen before.
    public mutating func insert(_ signature: String, ts: Int64, now: Int64) -> Bool {
        insert(fingerprint: Self.key(signature), ts: ts, now: now)
    }

    /// Records the proof of `fingerprint` (`Proof.fingerprint`) made at `ts`; false when it was
    /// seen before. A proof is its fingerprint and its `ts`: the same fingerprint at another `ts` is
    /// another proof (a signature covers the `ts` anyway, so for signed requests this is the
    /// fingerprint alone).
    public mutating func insert(fingerprint: UInt64, ts: Int64, now: Int64) -> Bool {
        if now != sweptAt { dropExpired(now: now) }
        let slice = Self.slice(of: ts), key = Self.entry(fingerprint, ts: ts)
        if let index = slices.index(forKey: slice) { return slices.values[index].insert(key).inserted }
        // Clients' clocks are mostly right: room only for the slice of now, not for a stray ts.
        var fresh = Set<UInt64>(minimumCapacity: slice == Self.slice(of: now) ? slices[slice - 1]?.count ?? 0 : 0)
        fresh.insert(key)
        slices[slice] = fresh
        return true
    }

    /// Forgets a proof recorded by a write that was then rolled back.
    public mutating func remove(fingerprint: UInt64, ts: Int64) {
        guard let index = slices.index(forKey: Self.slice(of: ts)) else { return }
        slices.values[index].remove(Self.entry(fingerprint, ts: ts))
    }

    /// A proof as its slice keeps it: the fingerprint mixed with the `ts` (for each `ts` a
    /// bijection, so no two fingerprints of one `ts` meet).
    static func entry(_ fingerprint: UInt64, ts: Int64) -> UInt64 {
        fingerprint &+ UInt64(bitPattern: ts) &* 0x9E37_79B9_7F4A_7C15
    }

    /// Proofs kept now, in every slice.
    public var count: Int { slices.values.reduce(0) { $0 + $1.count } }

    /// Slices held now.
    public var sliceCount: Int { slices.count }

    /// Proofs the slices have room for without growing.
    public var capacity: Int { slices.values.reduce(0) { $0 + $1.capacity } }

    public static func key(_ signature: String) -> UInt64 { Proof.fingerprint(signature) }

    /// The slice of `ts`, rounded down (so negative times too fall in whole slices).
    public static func slice(of ts: Int64) -> Int64 {
        ts >= 0 ? ts / sliceSeconds : (ts - sliceSeconds + 1) / sliceSeconds
    }

    /// Drops the slices whose last second is older than the window and `stepBackSeconds`: their
    /// proofs are refused by their `ts` before they reach this cache. Once a second at most.
    private mutating func dropExpired(now: Int64) {
        sweptAt = now
        let oldestLive = Self.slice(of: now - window - Self.stepBackSeconds)
        if slices.keys.contains(where: { $0 < oldestLive }) { slices = slices.filter { $0.key >= oldestLive } }
    }
}
