/// One `send` call inside the loop: a response slot per request, filled as each ends; the
/// completion runs once, when the last one has.
final class Batch {
    private var responses: [HTTP2Response]
    private var remaining: Int
    private let completion: @Sendable ([HTTP2Response]) -> Void

    init(count: Int, completion: @escaping @Sendable ([HTTP2Response]) -> Void) {
        responses = [HTTP2Response](repeating: HTTP2Response(status: 0), count: count)
        remaining = count
        self.completion = completion
        if count == 0 { completion([]) }
    }

    func finish(_ index: Int, _ response: HTTP2Response) {
        responses[index] = response
        remaining -= 1
        if remaining == 0 {
            let done = responses
            responses = []
            completion(done)
        }
    }
}
