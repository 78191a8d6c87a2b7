import Foundation
import Majordomo
import Schema

/// An app-wide query sent to every shard, waiting until each has answered.
struct Gather {
    let client: Data
    let request: ClientMessage
    let command: Command
    let seq: Int?
    var replies: [Data?]
    var waiting: Int
    let arrivedAt: Int64
}
