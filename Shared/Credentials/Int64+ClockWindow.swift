extension Int64 {
    /// Whether this time (Unix seconds) is within `window` seconds of `now`, for any two values. A
    /// request's `ts` can be anything a client writes, and `abs(now - ts)` traps when the
    /// difference overflows: a `ts` of Int64.min stopped the gateway with one unsigned message.
    public func isWithin(_ window: Int64, of now: Int64) -> Bool {
        let (difference, overflow) = now.subtractingReportingOverflow(self)
        return !overflow && difference.magnitude <= window.magnitude
    }
}
