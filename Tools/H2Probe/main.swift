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
        .int("batch", \.batch, in: 1...100_000, help: "bench: requests per perform call, all sent at once."),
        .int("max-streams", \.maxStreams, in: 1...100_000, help: "Streams at once on a connection (client side)."),
        .int("connections", \.connections, in: 1...64, help: "Connections to the host at most."),
        .optional("body-file", \.bodyFile, help: "The body to POST (a 200-byte APNs-like JSON payload by default)."),
        .int("timeout", \.timeout, in: 1...3600, help: "Seconds each perform call may take."),
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
    client = try HTTP2Client(options: HTTP2Options(caFile: settings.caFile, maxConnections: settings.connections, maxStreams: settings.maxStreams))
} catch {
    fail(error.description)
}

if settings.mode == "once" {
    let response = client.perform([request], timeout: Double(settings.timeout))[0]
    if let error = response.error { fail("transport failed: \(error)") }
    print("status=\(response.status)")
    for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) { print("\(name): \(value)") }
    print(String(decoding: response.body, as: UTF8.self))
    exit(0)
}

var statuses: [Int: Int] = [:]
var errors: [String: Int] = [:]
var echoed = 0
var slowest = 0.0
let started = Date()
var sent = 0
while sent < settings.requests {
    let count = min(settings.batch, settings.requests - sent)
    let batchStarted = Date()
    let responses = client.perform(Array(repeating: request, count: count), timeout: Double(settings.timeout))
    slowest = max(slowest, Date().timeIntervalSince(batchStarted))
    for response in responses {
        statuses[response.status, default: 0] += 1
        if let error = response.error { errors[error, default: 0] += 1 }
        if response.body == body { echoed += 1 }
    }
    sent += count
    if settings.pause > 0, sent < settings.requests { sleep(UInt32(settings.pause)) }
}
let seconds = Date().timeIntervalSince(started)
print("requests=\(sent) batch=\(settings.batch) seconds=\(String(format: "%.3f", seconds)) rate=\(Int(Double(sent) / seconds))/s slowest_batch_ms=\(Int(slowest * 1000))")
print("statuses=\(statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")) echoed=\(echoed) connections_opened=\(client.connectionsOpened)")
for (error, count) in errors.sorted(by: { $0.value > $1.value }).prefix(5) { print("error x\(count): \(error)") }
exit(errors.isEmpty ? 0 : 1)
