import Foundation
import Runtime

/// Unix seconds as the wire writes times: RFC 3339 in UTC, with milliseconds when there are any.
enum WireTime {
    static func string(_ seconds: Double) -> String {
        RFC3339.string(from: Date(timeIntervalSince1970: seconds), fractional: seconds.rounded(.down) != seconds)
    }
}
