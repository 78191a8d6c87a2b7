import Foundation
import HTTP2Client
import JSON
import Schema

/// The APNs stand-in (Tests/apns/standin.py: Hypercorn, HTTP/2 over TLS) on an ephemeral port, with
/// a self-signed certificate and a provider key made by openssl for this run. It checks each
/// request's JWT against the key's public half, answers per token as the test's rules say, and
/// keeps every request for the test to read back.
final class ApnsStandIn: @unchecked Sendable {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let bundleID = "com.example.pushbus"

    let directory: String
    let process: RunningProcess
    let port: Int
    /// The provider key's PEM text, as `apns.credentials` takes it.
    let p8: String
    private let client: HTTP2Client

    var url: String { "https://127.0.0.1:\(port)" }
    var caFile: String { "\(directory)/tls.crt" }
    /// The flags that point an `apns` sender here.
    var senderFlags: [String] { ["--apns-url", url, "--apns-ca-file", caFile] }

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("apns").path

    init() throws {
        directory = TestPaths.temporaryDirectory("apns")
        let keys = Process()
        keys.executableURL = URL(fileURLWithPath: "/bin/bash")
        keys.arguments = ["\(Self.sources)/make-keys.sh", directory]
        try keys.run()
        keys.waitUntilExit()
        guard keys.terminationStatus == 0 else { throw StackError("make-keys.sh failed") }
        p8 = try String(contentsOfFile: "\(directory)/AuthKey.p8", encoding: .utf8)
        let ready = "\(directory)/port"
        process = try RunningProcess("/usr/bin/env",
                                     ["python3", "\(Self.sources)/standin.py", "--port", "0", "--cert", "\(directory)/tls.crt", "--key", "\(directory)/tls.key",
                                      "--jwt-public-key", "\(directory)/AuthKey.pub.pem", "--team-id", Self.teamID, "--key-id", Self.keyID,
                                      "--log", "\(directory)/requests.jsonl", "--ready-file", ready,
                                      // Hypercorn answers 1,000 pushes/s with 100 streams in flight and 400/s with 999 (README).
                                      "--max-streams", "100"],
                                     logDirectory: directory)
        let deadline = Date().addingTimeInterval(20)
        var found: Int?
        while found == nil && Date() < deadline && process.isRunning {
            found = (try? String(contentsOfFile: ready, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if found == nil { usleep(50_000) }
        }
        guard let found else { throw StackError("the APNs stand-in did not start:\n\(process.output)") }
        port = found
        client = try HTTP2Client(options: HTTP2Options(caFile: "\(directory)/tls.crt", maxConnections: 1, streamTimeout: 10, sendTimeout: 10))
    }

    deinit {
        process.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every push request received, in arrival order: `token`, `headers`, `payload`, `status`, `reason`.
    func requests() throws -> [JSONValue] {
        guard case .array(let items) = try admin("GET", "/admin/requests") else { throw StackError("/admin/requests is not a list") }
        return items
    }

    /// Requests received and those answered 200.
    func count() throws -> (requests: Int, sent: Int) {
        let counts = try admin("GET", "/admin/count")
        return (Int(counts["requests"]?.number ?? -1), Int(counts["sent"]?.number ?? -1))
    }

    /// What `token` answers: `status` with `reason` (the first `times` requests only, when given).
    func rule(token: String, status: Int, reason: String? = nil, times: Int? = nil, retryAfter: Int? = nil, timestamp: Double? = nil) throws {
        var rule: [String: JSONValue] = ["token": .string(token), "status": .number(Double(status))]
        if let reason { rule["reason"] = .string(reason) }
        if let times { rule["times"] = .number(Double(times)) }
        if let retryAfter { rule["retry_after"] = .number(Double(retryAfter)) }
        if let timestamp { rule["timestamp"] = .number(timestamp) }
        _ = try admin("POST", "/admin/rules", body: .object(rule))
    }

    /// Every provider token seen so far is answered `ExpiredProviderToken` from now on.
    func expireTokens() throws { _ = try admin("POST", "/admin/expire-tokens", body: .object([:])) }

    /// Every push is answered `seconds` after it arrives.
    func delay(_ seconds: Double) throws { _ = try admin("POST", "/admin/delay", body: .object(["seconds": .number(seconds)])) }

    func clear() throws { _ = try admin("DELETE", "/admin/requests") }

    private func admin(_ method: String, _ path: String, body: JSONValue? = nil) throws -> JSONValue {
        let request = HTTP2Request(method: method, url: url + path, headers: [("content-type", "application/json")],
                                   body: body.map { WireCodec.encode($0) } ?? Data())
        guard let response = client.sendAndWait([request], lane: "admin").first, (200..<300).contains(response.status) else {
            throw StackError("stand-in \(method) \(path) failed:\n\(process.output.suffix(2000))")
        }
        return response.body.isEmpty ? .null : try JSONTreeDecoder().decode(JSONValue.self, from: response.body)
    }
}
