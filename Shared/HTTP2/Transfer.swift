import CCurl
import Foundation

/// One libcurl easy handle and what a request in flight on it collects. The client keeps a pool
/// of these and reuses them, so the per-handle set-up (TLS settings, callbacks) is paid once; the
/// connection itself lives in the multi handle's cache, not here. Owned by the client's thread.
final class Transfer {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl's detailed reason for a failure ("SSL certificate problem: ..."), beyond its code.
    private let errorText: UnsafeMutablePointer<CChar>
    private var head = ResponseHead()
    private var body = Data()

    init(options: HTTP2Options) throws(HTTP2Error) {
        guard let handle = curl_easy_init() else { throw .setup("curl_easy_init returned nothing") }
        self.handle = handle
        errorText = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorText[0] = 0
        try configure(options)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorText.deallocate()
    }

    /// What stays the same for every request on this handle.
    private func configure(_ options: HTTP2Options) throws(HTTP2Error) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Signals are not safe in a multi-threaded process; DNS timeouts then rely on the threaded resolver.
        try check(pushbus_curl_set_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        // Wait for a connection that can multiplex instead of opening another one beside it.
        try check(pushbus_curl_set_long(handle, CURLOPT_PIPEWAIT, 1), "CURLOPT_PIPEWAIT")
        try check(pushbus_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1), "CURLOPT_SSL_VERIFYPEER")
        try check(pushbus_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2), "CURLOPT_SSL_VERIFYHOST")
        if let caFile = options.caFile {
            try check(pushbus_curl_set_string(handle, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO")
        }
        try check(pushbus_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout)), "CURLOPT_CONNECTTIMEOUT_MS")
        // Straight to the host: an empty proxy also spares libcurl reading the *_proxy variables for every request.
        try check(pushbus_curl_set_string(handle, CURLOPT_PROXY, ""), "CURLOPT_PROXY")
        // A provider connection idles between bursts; keepalive notices a dead peer sooner.
        try check(pushbus_curl_set_long(handle, CURLOPT_TCP_KEEPALIVE, 1), "CURLOPT_TCP_KEEPALIVE")
        try check(pushbus_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText), "CURLOPT_ERRORBUFFER")
        try check(pushbus_curl_set_write_callback(handle, { data, size, count, context in
            guard let data, let context else { return 0 }
            Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().body.append(UnsafeBufferPointer(start: data, count: size * count))
            return size * count
        }, context), "CURLOPT_WRITEFUNCTION")
        try check(pushbus_curl_set_header_callback(handle, { data, size, count, context in
            guard let data, let context else { return 0 }
            Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().head.take(line: UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }, context), "CURLOPT_HEADERFUNCTION")
    }

    /// Sets the handle up for `request`, to give up after `timeout` seconds; nil when ready, else
    /// why the request cannot be sent (it then never reaches the wire).
    func prepare(_ request: HTTP2Request, timeout: Double) -> HTTP2Error? {
        head.reset()
        body.removeAll(keepingCapacity: true)
        errorText[0] = 0
        curl_slist_free_all(headerList)
        headerList = nil
        do {
            try check(pushbus_curl_set_string(handle, CURLOPT_URL, request.url), "CURLOPT_URL")
            try check(pushbus_curl_set_long(handle, CURLOPT_HTTP_VERSION, Self.version(for: request.url)), "CURLOPT_HTTP_VERSION")
            try check(pushbus_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)), "CURLOPT_TIMEOUT_MS")
            try setMethod(request)
            try setHeaders(request)
        } catch {
            // An option refused here is this request's failure, not the client's.
            switch error {
            case .setup(let reason), .request(let reason): return .request(reason)
            }
        }
        return nil
    }

    private func setMethod(_ request: HTTP2Request) throws(HTTP2Error) {
        try check(pushbus_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, nil), "CURLOPT_CUSTOMREQUEST")
        if request.method == "GET" {
            try check(pushbus_curl_set_long(handle, CURLOPT_HTTPGET, 1), "CURLOPT_HTTPGET")
            return
        }
        let set = request.body.withUnsafeBytes { pushbus_curl_set_body(handle, $0.baseAddress, $0.count) }
        try check(set, "CURLOPT_COPYPOSTFIELDS")
        if request.method != "POST" {
            try check(pushbus_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method), "CURLOPT_CUSTOMREQUEST")
        }
    }

    private func setHeaders(_ request: HTTP2Request) throws(HTTP2Error) {
        var lines: [String] = []
        var named: Set<String> = []
        for (name, value) in request.headers {
            // A line break would end the header early and let the rest pass as another one.
            guard !name.isEmpty, !Self.breaksLine(name), !Self.breaksLine(value) else {
                throw .request("header \(name.debugDescription) has an empty name or a line break")
            }
            lines.append("\(name): \(value)")
            named.insert(name.lowercased())
        }
        // "name:" with no value tells libcurl to drop a header it would add of its own.
        for name in ["accept", "content-type"] where !named.contains(name) { lines.append("\(name):") }
        for line in lines {
            guard let longer = curl_slist_append(headerList, line) else { throw .request("curl_slist_append ran out of memory") }
            headerList = longer
        }
        try check(pushbus_curl_set_slist(handle, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
    }

    /// The response, once libcurl has said the transfer ended with `code`.
    func response(_ code: CURLcode) -> HTTP2Response {
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            let detail = String(cString: errorText)
            return .failure(detail.isEmpty ? reason : "\(reason): \(detail)")
        }
        var status = 0
        _ = pushbus_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTP2Response(status: status, headers: head.headers, body: body)
    }

    /// How many new connections this transfer had to open (0 when it reused one).
    var connectionsOpened: Int {
        var count = 0
        _ = pushbus_curl_get_long(handle, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    private func check(_ code: CURLcode, _ option: String) throws(HTTP2Error) {
        guard code == CURLE_OK else { throw .setup("\(option): \(String(cString: curl_easy_strerror(code)))") }
    }

    /// HTTP/2 by ALPN over TLS (a server that declines it gets HTTP/1.1, one request per
    /// connection at a time); over http://, h2c from the first byte, as there is nothing to negotiate with.
    private static func version(for url: String) -> Int {
        url.utf8.starts(with: "http://".utf8) ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS
    }

    private static func breaksLine(_ text: String) -> Bool { text.utf8.contains { $0 == 0x0D || $0 == 0x0A } }

    private static func milliseconds(_ seconds: Double) -> Int { Int(max(1, (seconds * 1000).rounded(.up))) }
}
