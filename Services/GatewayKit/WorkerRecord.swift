import Foundation

/// A worker the broker knows: what it serves, how many requests it takes at once, which it holds.
final class WorkerRecord {
    let identity: Data
    let service: String
    let credit: Int
    var inFlight: Set<UInt64> = []
    var expiry: Int64

    init(identity: Data, service: String, credit: Int, expiry: Int64) {
        self.identity = identity
        self.service = service
        self.credit = credit
        self.expiry = expiry
    }

    var hasCredit: Bool { inFlight.count < credit }
}
