import Client
import Credentials
import Foundation
import ZeroMQ

/// The real `gateway` and `badge` executables (from this tool's own directory) on local ports,
/// stopped with SIGTERM.
final class BenchStack {
    let endpoint: String
    private let context: Context
    /// The deployment's secrets, to sign the pushes as the app.
    private let secrets: Secrets
    private var processes: [Process] = []

    init(basePort: Int, dataDirectory: String) throws {
        endpoint = "tcp://127.0.0.1:\(basePort)"
        context = try Context()
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        let bus = ["--events-in", "tcp://127.0.0.1:\(basePort + 2)", "--events-out", "tcp://127.0.0.1:\(basePort + 3)",
                   "--endpoint", endpoint, "--log-level", "warning", "--parent-pid", String(getpid())]
        secrets = try Secrets.load(directory: dataDirectory)
        try launch("\(bin)/gateway", bus + ["--request-timeout-ms", "60000", "--data-dir", dataDirectory,
                                            "--metrics", "127.0.0.1:\(basePort + 1)"])
        try launch("\(bin)/badge", bus + ["--data-dir", dataDirectory])
        let probe = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: 200)
        let deadline = Date().addingTimeInterval(30)
        while (try? probe.serviceStatus("badge")) != "200" {
            guard Date() < deadline else { throw BenchError("badge never became ready at \(endpoint)") }
            usleep(20_000)
        }
    }

    deinit { stop() }

    func client() throws -> MajordomoClient {
        let client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: 60_000)
        client.signer = Signer(secrets: secrets)
        return client
    }

    /// SIGTERM to each process, badge first, and waits for the exits. Safe to call twice.
    func stop() {
        for process in processes.reversed() where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        processes.removeAll()
    }

    private func launch(_ executable: String, _ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("\(executable) is not built: swift build -c release first")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        processes.append(process)
    }
}
