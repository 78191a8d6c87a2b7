/// When a busy worker waits a moment before it runs what it took, so that one commit (and one burst
/// of replies) serves more requests. At half the tagging worker's peak it took about 5 requests a
/// batch: every commit wrote its fixed pages (the tag counts, the proof row, the outbox row and its
/// index) and synced them for a few requests, and every process of the stack woke for a few
/// requests, so a call cost twice the CPU it costs at the peak (docs/benchmarks.md, "Batches
/// gathered for a moment").
///
/// The wait is taken only when a batch already holds two requests or more, and requests arrive fast
/// enough that `window` is expected to bring at least `expectedArrivals` more, judged both by the
/// rate smoothed over recent batches and by this batch alone. So a lone request never waits (a
/// client that sends one request at a time is never held up), nor does the first batch after a
/// pause; a batch of `fullBatch` or more never waits either, nor one already as large as a batch
/// may be (`largest`, the worker's batch limit): nothing more could join it.
///
/// Off unless `--gather-us` sets a window: the wait lowers the CPU a request costs at moderate load
/// but lengthens the median latency (measured in docs/benchmarks.md). Times are monotonic
/// microseconds. Owned by the worker loop's thread.
struct BatchGathering {
    /// The longest a batch waits, in microseconds; 0 never waits.
    let window: Int64
    /// The most requests a batch takes.
    let largest: Int
    /// Requests the window must be expected to bring for the wait to be worth it.
    static let expectedArrivals = 2.0
    /// A batch this large already shares its commit widely enough.
    static let fullBatch = 32
    /// Requests a microsecond, smoothed over the batches taken (a quarter weight to the newest).
    private(set) var rate = 0.0
    /// When the last batch was first taken from, and when it was last taken from.
    private var lastIntake: Int64?
    private var lastTaken: Int64 = 0

    init(window: Int64, largest: Int = .max) {
        self.window = window
        self.largest = largest
    }

    /// How long a batch whose first `count` requests were taken at `intake` waits for more before
    /// it runs: `window`, or 0. Those requests arrived since the last batch was last taken from.
    func wait(taken count: Int, at intake: Int64) -> Int64 {
        guard window > 0, count >= 2, count < min(Self.fullBatch, largest), lastIntake != nil, intake > lastTaken else { return 0 }
        let recent = Double(count) / Double(intake - lastTaken)
        return min(rate, recent) * Double(window) >= Self.expectedArrivals ? window : 0
    }

    /// Records a batch of `count` requests in all, first taken from at `intake` and last at
    /// `taken` (later when it waited). From one batch's first take to the next's, the intervals
    /// tile the time and each request is counted once, so their counts over them are the rate.
    mutating func record(_ count: Int, at intake: Int64, lastTaken taken: Int64) {
        if let lastIntake, intake > lastIntake {
            rate += (Double(count) / Double(intake - lastIntake) - rate) / 4
        }
        lastIntake = intake
        lastTaken = taken
    }
}
