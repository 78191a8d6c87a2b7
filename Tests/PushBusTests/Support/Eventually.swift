import Foundation

/// Polls `condition` every `interval` microseconds until it holds or `seconds` pass; its last answer.
func eventually(_ seconds: Double = 10, every interval: useconds_t = 50_000,
                _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(interval)
    }
    return try condition()
}
