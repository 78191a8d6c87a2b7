/// One `send` call on its way to the loop.
struct Submission: Sendable {
    var requests: [HTTP2Request]
    var lane: String
    var completion: @Sendable ([HTTP2Response]) -> Void
}
