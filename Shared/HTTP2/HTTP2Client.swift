import CCurl
import Foundation

/// An HTTP/2 client for one host (an APNs endpoint): a libcurl multi handle whose requests run as
/// concurrent streams on one kept-alive connection. Not Sendable: one thread creates it, calls
/// `perform` and lets it go; the connection stays open between calls, in the multi handle's cache.
public final class HTTP2Client {
    private let multi: UnsafeMutableRawPointer
    private let options: HTTP2Options
    /// Easy handles between calls, so each is set up once however many requests it carries; never
    /// more than the streams allowed at once.
    private var idle: [Transfer] = []
    /// New connections opened so far (libcurl's `CURLINFO_NUM_CONNECTS`, summed): stays at 1 while
    /// every request rides the same connection.
    public private(set) var connectionsOpened = 0

    /// libcurl's process-wide set-up, run once (a `static let` is initialised under a lock).
    private static let global: CURLcode = pushbus_curl_global_init()

    /// Throws `HTTP2Error.setup` when libcurl cannot start or refuses a setting.
    public init(options: HTTP2Options = HTTP2Options()) throws(HTTP2Error) {
        guard Self.global == CURLE_OK else { throw .setup("curl_global_init: \(String(cString: curl_easy_strerror(Self.global)))") }
        guard let multi = curl_multi_init() else { throw .setup("curl_multi_init returned nothing") }
        self.multi = multi
        self.options = options
        try set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX), "CURLMOPT_PIPELINING")
        try set(CURLMOPT_MAX_HOST_CONNECTIONS, options.maxConnections, "CURLMOPT_MAX_HOST_CONNECTIONS")
        try set(CURLMOPT_MAX_CONCURRENT_STREAMS, options.maxStreams, "CURLMOPT_MAX_CONCURRENT_STREAMS")
    }

    deinit {
        // Handles are never left in the multi handle between calls, so it can go first; it closes the connections.
        curl_multi_cleanup(multi)
        idle.removeAll()
    }

    /// Sends the requests as concurrent streams on the cached connection (opening it first when
    /// there is none), and blocks until all have ended or `timeout` seconds have passed. At most
    /// `maxStreams × maxConnections` are in libcurl at once; the rest wait here and go as others
    /// end. Returns one response per request, in order; a request that got no answer in time, or
    /// whose transport failed, has `status` 0 and says why in `error`. Never throws: one bad
    /// request or a lost connection fails those requests only. `meanwhile` runs at least every
    /// tenth of a second while it waits (a worker's heartbeat, say).
    public func perform(_ requests: [HTTP2Request], timeout: Double, meanwhile: () -> Void = {}) -> [HTTP2Response] {
        let deadline = Date().addingTimeInterval(timeout)
        let limit = max(1, options.maxStreams * options.maxConnections)
        var responses = [HTTP2Response?](repeating: nil, count: requests.count)
        var running: [UnsafeMutableRawPointer: (transfer: Transfer, index: Int)] = [:]
        var next = 0
        while true {
            // Requests past the limit wait here: waiting inside libcurl costs a pass over each of them on every wake-up.
            while next < requests.count, running.count < limit {
                switch start(requests[next], timeout: deadline.timeIntervalSinceNow) {
                case .success(let transfer): running[transfer.handle] = (transfer, next)
                case .failure(let error): responses[next] = .failure(error.description)
                }
                next += 1
            }
            if running.isEmpty { break }
            var active: Int32 = 0
            let performed = curl_multi_perform(multi, &active)
            guard performed == CURLM_OK else {
                let reason = "curl_multi_perform: \(String(cString: curl_multi_strerror(performed)))"
                for (transfer, index) in running.values { responses[index] = finish(transfer, with: .failure(reason)) }
                running.removeAll()
                break
            }
            for (handle, code) in ended() {
                guard let (transfer, index) = running.removeValue(forKey: handle) else { continue }
                responses[index] = finish(transfer, with: transfer.response(code))
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { break }
            if running.isEmpty || (next < requests.count && running.count < limit) { continue }
            meanwhile()
            // Wakes on socket activity or libcurl's own next timeout, whichever comes first.
            _ = curl_multi_poll(multi, nil, 0, Int32(min(left * 1000, 100).rounded(.up)), nil)
        }
        // libcurl's per-transfer timeout normally ends these first; this is the backstop.
        for (transfer, index) in running.values {
            responses[index] = finish(transfer, with: .failure("no answer within \(timeout) s"))
        }
        return responses.map { $0 ?? .failure("not sent within \(timeout) s") }
    }

    /// A pooled handle set up for `request` and added to the multi handle.
    private func start(_ request: HTTP2Request, timeout: Double) -> Result<Transfer, HTTP2Error> {
        let transfer: Transfer
        if let reused = idle.popLast() {
            transfer = reused
        } else {
            do { transfer = try Transfer(options: options) } catch { return .failure(error) }
        }
        if let problem = transfer.prepare(request, timeout: timeout) {
            idle.append(transfer)
            return .failure(problem)
        }
        let added = curl_multi_add_handle(multi, transfer.handle)
        guard added == CURLM_OK else {
            idle.append(transfer)
            return .failure(.request("curl_multi_add_handle: \(String(cString: curl_multi_strerror(added)))"))
        }
        return .success(transfer)
    }

    /// The transfers libcurl has finished since last asked, with how each ended. Read out whole
    /// before any handle is removed: removing one invalidates libcurl's message.
    private func ended() -> [(handle: UnsafeMutableRawPointer, code: CURLcode)] {
        var ended: [(handle: UnsafeMutableRawPointer, code: CURLcode)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            ended.append((handle, message.pointee.data.result))
        }
        return ended
    }

    /// Takes `transfer` out of the multi handle and back to the pool; passes `response` through.
    private func finish(_ transfer: Transfer, with response: HTTP2Response) -> HTTP2Response {
        curl_multi_remove_handle(multi, transfer.handle)
        connectionsOpened += transfer.connectionsOpened
        idle.append(transfer)
        return response
    }

    private func set(_ option: CURLMoption, _ value: Int, _ name: String) throws(HTTP2Error) {
        let code = pushbus_curl_multi_set_long(multi, option, value)
        // Thrown from init after every property is set, so deinit still cleans the multi handle up.
        guard code == CURLM_OK else { throw .setup("\(name): \(String(cString: curl_multi_strerror(code)))") }
    }
}
