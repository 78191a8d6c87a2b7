import Foundation
import Schema

/// Where the next page of an audience starts: after device id `after`, with the `total` counted
/// on the first page (so later pages do not count again). Opaque to clients.
struct AudienceCursor: Equatable {
    let after: Int64
    let total: Int

    init(after: Int64, total: Int) {
        self.after = after
        self.total = total
    }

    init(_ text: String) throws(CommandError) {
        guard let data = Data(base64Encoded: text), let plain = String(data: data, encoding: .utf8) else {
            throw .invalid("cursor is not one this service gave out")
        }
        let parts = plain.split(separator: ":")
        guard parts.count == 3, parts[0] == "a1", let after = Int64(parts[1]), let total = Int(parts[2]),
              after >= 0, total >= 0 else {
            throw .invalid("cursor is not one this service gave out")
        }
        self.init(after: after, total: total)
    }

    var text: String { Data("a1:\(after):\(total)".utf8).base64EncodedString() }
}
