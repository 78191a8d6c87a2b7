import Foundation
import Majordomo
import Schema

/// An app-wide query sent to the shards of `service`, waiting until each shard asked in the current
/// round has answered. An audience page may take more than one round (`paging`).
struct Gather {
    let client: Data
    let request: ClientMessage
    let command: Command
    let service: String
    let seq: Int?
    /// The client's verified proof, and the shards that have had it.
    let proof: VerifiedProof?
    var proofSentTo: Set<Int> = []
    var replies: [Data?] = []
    var waiting = 0
    let arrivedAt: Int64
    var paging: AudiencePaging?
}
