import Schema

/// What one APNs answer means for a delivery: sent; tried again later (429, 5xx, no answer, while
/// attempts remain), after APNs' `retry-after` or an exponential backoff; or failed for good with
/// APNs' reason, and for 410 Unregistered and 400 BadDeviceToken the token is dead since APNs'
/// `timestamp` (or now).
enum ApnsOutcome: Equatable {
    case sent
    case retry(after: Double)
    /// The sender has this notification in flight already (sent once before, its answer not come
    /// back to us): asked again in a moment, no attempt counted, never sent twice.
    case wait(after: Double)
    case failed(reason: String, tokenDeadSince: Double?)

    static let maxBackoff = 60.0
    /// How soon a notification the sender has in flight is asked for again.
    static let inFlightWait = 2.0

    /// `result` nil: no answer came. `attempts` counts this one.
    init(_ result: ApnsResult?, attempts: Int, maxAttempts: Int, now: Double) {
        if let result, result.status == 0, result.reason == "InFlight" {
            self = .wait(after: Self.inFlightWait)
            return
        }
        guard let result, result.status != 0 else {
            self = Self.retryOrFail(result?.reason ?? "NoAnswer", retryAfter: nil, attempts: attempts, maxAttempts: maxAttempts)
            return
        }
        let reason = result.reason ?? "HTTP\(result.status)"
        switch result.status {
        case 200:
            self = .sent
        case 410:
            self = .failed(reason: reason, tokenDeadSince: result.timestamp.map { $0 / 1000 } ?? now)
        case 400 where reason == "BadDeviceToken":
            self = .failed(reason: reason, tokenDeadSince: now)
        case 429, 500...599:
            self = Self.retryOrFail(reason, retryAfter: result.retryAfter, attempts: attempts, maxAttempts: maxAttempts)
        default:
            self = .failed(reason: reason, tokenDeadSince: nil)
        }
    }

    private static func retryOrFail(_ reason: String, retryAfter: Double?, attempts: Int, maxAttempts: Int) -> ApnsOutcome {
        guard attempts < maxAttempts else { return .failed(reason: reason, tokenDeadSince: nil) }
        let backoff = min(maxBackoff, Double(1 << min(attempts - 1, 6)))
        return .retry(after: min(maxBackoff * 10, max(retryAfter ?? 0, backoff)))
    }
}
