import Credentials
import Foundation
import JSON
import Schema

/// An `api` process in front of a test's gateway, on a free port; ready once it answers HTTP.
final class ApiServer: @unchecked Sendable {
    let process: RunningProcess
    let port: Int
    private let secrets: Secrets
    var base: String { "http://127.0.0.1:\(port)" }

    init(stack: TestStack, extra: [String] = []) throws {
        port = Ports.free()
        secrets = stack.secrets
        process = try RunningProcess(TestPaths.executable("api"),
                                     ["--endpoint", stack.endpoint, "--data-dir", stack.dataDirectory, "--listen", "127.0.0.1:\(port)",
                                      "--parent-pid", String(getpid())] + extra,
                                     logDirectory: stack.logDirectory)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && process.isRunning {
            if (try? HTTPGet.fetch(port: port, path: "/v4/tags", timeout: 1)) != nil { return }
            usleep(50_000)
        }
        throw StackError("the api did not start:\n\(process.output)")
    }

    /// `Authorization` of `appKey`'s server: HTTP Basic with its master secret.
    func basic(_ appKey: String) -> String {
        "Basic " + Data("\(appKey):\(secrets.masterSecret(appKey: appKey))".utf8).base64EncodedString()
    }

    /// `Authorization` of the deployment's admin.
    var bearer: String { "Bearer " + secrets.admin }

    /// One request with `authorization` (none when nil) and `body` as JSON; the status, the headers
    /// (names lower-cased) and the body as JSON (null when it is not JSON).
    func send(_ method: String, _ path: String, _ body: JSONValue? = nil, authorization: String?) throws
        -> (status: Int, headers: [String: String], body: JSONValue) {
        try send(method, path, text: body.map { String(decoding: WireCodec.encode($0), as: UTF8.self) }, authorization: authorization)
    }

    /// As `send`, with the body's JSON text as given (members in its order, a key twice).
    func send(_ method: String, _ path: String, text: String?, authorization: String?) throws
        -> (status: Int, headers: [String: String], body: JSONValue) {
        var headers = ["Content-Type": "application/json"]
        if let authorization { headers["Authorization"] = authorization }
        let answer = try HTTPGet.exchange(port: port, path: path, timeout: 20, method: method, headers: headers, body: Data((text ?? "").utf8))
        return (answer.status, answer.headers, (try? JSONTreeDecoder().decode(JSONValue.self, from: Data(answer.body.utf8))) ?? .null)
    }
}
