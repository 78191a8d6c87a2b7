import Foundation

/// A worker the broker knows: what it serves, how many requests it takes at once, which it holds.
struct WorkerRecord {
    let identity: Data
    let service: String
    let credit: Int
    var inFlight: Set<UInt64> = []
    var expiry: Int64

    var hasCredit: Bool { inFlight.count < credit }
}
