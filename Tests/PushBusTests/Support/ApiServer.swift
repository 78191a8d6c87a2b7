import Foundation

/// An `api` process in front of a test's gateway, on a free port; ready once it answers HTTP.
final class ApiServer: @unchecked Sendable {
    let process: RunningProcess
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }

    init(stack: TestStack, extra: [String] = []) throws {
        port = Ports.free()
        process = try RunningProcess(TestPaths.executable("api"),
                                     ["--endpoint", stack.endpoint, "--data-dir", stack.dataDirectory, "--http", "127.0.0.1:\(port)",
                                      "--parent-pid", String(getpid())] + extra,
                                     logDirectory: stack.logDirectory)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && process.isRunning {
            if (try? HTTPGet.fetch(port: port, path: "/v4/tags", timeout: 1)) != nil { return }
            usleep(50_000)
        }
        throw StackError("the api did not start:\n\(process.output)")
    }
}
