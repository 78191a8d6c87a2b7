import Foundation
import JSON

/// The fault-injecting HTTP/2 server (Tests/apns/h2fault.py) on an ephemeral port, over TLS with a
/// certificate made by make-keys.sh (or h2c with `tls: false`), misbehaving as `flags` say. Every
/// event it logs (accepts, requests, resets, GOAWAYs) is read back with `events`.
final class H2Fault {
    let directory: String
    let process: RunningProcess
    let port: Int
    let tls: Bool

    var origin: String { "\(tls ? "https" : "http")://127.0.0.1:\(port)" }
    var caFile: String { "\(directory)/tls.crt" }

    init(_ flags: [String] = [], tls: Bool = true) throws {
        self.tls = tls
        directory = TestPaths.temporaryDirectory("h2fault")
        if tls {
            let keys = Process()
            keys.executableURL = URL(fileURLWithPath: "/bin/bash")
            keys.arguments = ["\(ApnsStandIn.sources)/make-keys.sh", directory]
            try keys.run()
            keys.waitUntilExit()
            guard keys.terminationStatus == 0 else { throw StackError("make-keys.sh failed") }
        }
        let ready = "\(directory)/port"
        let certificate = tls ? ["--cert", "\(directory)/tls.crt", "--key", "\(directory)/tls.key"] : []
        process = try RunningProcess("/usr/bin/env",
                                     ["python3", "\(ApnsStandIn.sources)/h2fault.py", "--port", "0", "--ready-file", ready,
                                      "--log", "\(directory)/events.jsonl"] + certificate + flags,
                                     logDirectory: directory)
        let deadline = Date().addingTimeInterval(20)
        var found: Int?
        while found == nil && Date() < deadline && process.isRunning {
            found = (try? String(contentsOfFile: ready, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if found == nil { usleep(20_000) }
        }
        guard let found else { throw StackError("h2fault.py did not start:\n\(process.output)") }
        port = found
    }

    deinit {
        process.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every event logged so far, or only those named `name`.
    func events(_ name: String? = nil) -> [JSONValue] {
        let text = (try? String(contentsOfFile: "\(directory)/events.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let value = try? JSONTreeDecoder().decode(JSONValue.self, from: Data(line.utf8)) else { return nil }
            return name == nil || value["event"]?.string == name ? value : nil
        }
    }

    /// How many times each request id was taken to be processed (less those a GOAWAY withdrew).
    func processed() -> [String: Int] {
        var counts: [String: Int] = [:]
        for event in events() {
            let id = event["id"]?.string ?? ""
            switch event["event"]?.string {
            case "request": counts[id, default: 0] += 1
            case "withdrawn": counts[id, default: 0] -= 1
            default: break
            }
        }
        return counts.filter { $0.value != 0 }
    }

    var output: String { process.output }
}
