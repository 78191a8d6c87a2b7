import Foundation
import HTTP2Client
import JWT
import Runtime

// A probe for the HTTP/2 transport against a local stand-in (nghttpd from Debian's nghttp2-server, say):
//  - bench: POSTs in batches, each batch sent at once as streams on one connection; prints the rate;
//  - once: one POST, printing the answer or the transport error (exit 1 on a transport failure);
//  - token: prints an APNs provider token signed with a .p8 key.

/// From flags; each property's initial value is its flag's default.
struct Settings: Options {
    var mode = "bench"
    var url = "https://127.0.0.1:8443/3/device/abcd"
    var caFile: String?
    var requests = 20_000
    var batch = 500
    var maxStreams = 500
    var connections = 1
    var bodyFile: String?
    var timeout = 30
    var pause = 0
    var inFlight = 2
    var apns = false
    var key: String?
    var keyID = "ABC123DEFG"
    var teamID = "DEF123GHIJ"

    init() {}

    static let options: [Option<Settings>] = [
        .string("mode", \.mode, help: "bench (default), once or token."),
        .string("url", \.url, help: "Where the POSTs go."),
        .optional("ca-file", \.caFile, help: "PEM certificate authorities to trust instead of the system's."),
        .int("requests", \.requests, in: 1...10_000_000, help: "bench: requests in all."),
        .int("batch", \.batch, in: 1...100_000, help: "bench: requests per send call, all queued at once; the next call goes when one ends."),
        .int("max-streams", \.maxStreams, in: 1...100_000, help: "Streams at once on a connection (client side)."),
        .int("connections", \.connections, in: 1...64, help: "Connections to the host at most."),
        .optional("body-file", \.bodyFile, help: "The body to POST (a 200-byte APNs-like JSON payload by default)."),
        .int("timeout", \.timeout, in: 1...3600, help: "Seconds a request may wait to be written, and a stream may take."),
        .int("in-flight", \.inFlight, in: 1...64, help: "bench: send calls queued at once (2 keeps the streams full while a completion is read)."),
        .int("pause", \.pause, in: 0...3600, help: "bench: seconds idle between batches (the connection should survive them)."),
        .switch("apns", \.apns, help: "Send the headers APNs wants (authorization, apns-topic, apns-push-type, ...)."),
        .optional("key", \.key, help: "token, or bench with --apns: the .p8 key that signs the provider token."),
        .string("key-id", \.keyID, help: "The token's kid."),
        .string("team-id", \.teamID, help: "The token's iss."),
    ]

    func validate() throws(UsageError) {
        guard ["bench", "once", "token"].contains(mode) else { throw UsageError("--mode must be bench, once or token") }
        if mode == "token", key == nil { throw UsageError("--mode token needs --key") }
    }
}

let settings = Settings.parseOrExit(program: "h2probe", summary: "Probes the HTTP/2 transport (and the provider token) against a local server.")

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("h2probe: \(message)\n".utf8))
    exit(1)
}

func token() -> ProviderToken? {
    guard let path = settings.key else { return nil }
    do { return try ProviderToken(key: try ES256Key(contentsOfFile: path), keyID: settings.keyID, teamID: settings.teamID) } catch {
        fail(error.description)
    }
}

if settings.mode == "token" {
    print(token()?.text ?? "")
    exit(0)
}

let body: Data
if let path = settings.bodyFile {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    body = data
} else {
    body = Data(#"{"aps":{"alert":{"title":"PushBus","body":"Your order 1234 has shipped and will arrive on Thursday."},"badge":3,"sound":"default"},"order":"1234","kind":"shipping","padding":"xxxxxxxxxxxxxxxxxxx"}"#.utf8)
}

var headers: [(name: String, value: String)] = [("content-type", "application/json")]
if settings.apns {
    let bearer = token()?.authorization ?? "bearer not-signed"
    headers += [("authorization", bearer), ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
                ("apns-priority", "10"), ("apns-expiration", "0")]
}
let request = HTTP2Request(url: settings.url, headers: headers, body: body)

let client: HTTP2Client
do {
    client = try HTTP2Client(options: HTTP2Options(caFile: settings.caFile, maxConnections: settings.connections, maxStreams: settings.maxStreams,
                                                   streamTimeout: Double(settings.timeout), sendTimeout: Double(settings.timeout)))
} catch {
    fail(error.description)
}

if settings.mode == "once" {
    let response = client.sendAndWait([request], lane: "probe")[0]
    if let failure = response.failure { fail("transport failed: \(failure)") }
    print("status=\(response.status)")
    for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) { print("\(name): \(value)") }
    print(String(decoding: response.body, as: UTF8.self))
    exit(0)
}

// --in-flight calls queued at once (2 by default), so the streams do not drain while one call's
// completion is read: the apns sender gets the same from its replicas' many batches.
final class Tally: @unchecked Sendable {
    // Written only on the client's loop thread (completions), read after `done` is signalled.
    var statuses: [Int: Int] = [:]
    var failures: [String: Int] = [:]
    var echoed = 0
    var slowest = 0.0
    var sent = 0
    var ended = 0
}
let tally = Tally()
let done = DispatchSemaphore(value: 0)
let batchRequests = Array(repeating: request, count: settings.batch)
let started = Date()

@Sendable func next() {
    guard tally.sent < settings.requests else { return }
    let count = min(settings.batch, settings.requests - tally.sent)
    tally.sent += count
    let batchStarted = Date()
    client.send(count == batchRequests.count ? batchRequests : Array(batchRequests.prefix(count)), lane: "probe") { responses in
        tally.slowest = max(tally.slowest, Date().timeIntervalSince(batchStarted))
        for response in responses {
            tally.statuses[response.status, default: 0] += 1
            if let failure = response.failure { tally.failures[failure.description, default: 0] += 1 }
            if response.body == body { tally.echoed += 1 }
        }
        tally.ended += count
        if tally.ended == settings.requests {
            done.signal()
            return
        }
        if settings.pause > 0 { sleep(UInt32(settings.pause)) }
        next()
    }
}
// Both first calls are queued before the loop takes either, from this thread; later ones from completions.
client.send([], lane: "probe") { _ in
    for _ in 0..<settings.inFlight { next() }
}
done.wait()
let seconds = Date().timeIntervalSince(started)
let counters = client.counters
print("requests=\(tally.sent) batch=\(settings.batch) seconds=\(String(format: "%.3f", seconds)) rate=\(Int(Double(tally.sent) / seconds))/s slowest_batch_ms=\(Int(tally.slowest * 1000))")
print("statuses=\(tally.statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")) echoed=\(tally.echoed) connections_opened=\(counters.connectionsOpened) pings=\(counters.pingsSent) retried=\(counters.requestsRetried)")
for (failure, count) in tally.failures.sorted(by: { $0.value > $1.value }).prefix(5) { print("failure x\(count): \(failure)") }
client.stop()
exit(tally.failures.isEmpty ? 0 : 1)
