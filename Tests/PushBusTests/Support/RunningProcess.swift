import Foundation

/// A child process a test started, its output kept in a file for failure messages.
/// Killed (SIGKILL) when released, so a failing test never leaves one behind.
final class RunningProcess: @unchecked Sendable {
    let name: String
    let process = Process()
    let logPath: String

    init(_ executable: String, _ arguments: [String], logDirectory: String) throws {
        name = URL(fileURLWithPath: executable).lastPathComponent
        logPath = "\(logDirectory)/\(name)-\(UUID().uuidString.prefix(6)).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    deinit { kill() }

    var isRunning: Bool { process.isRunning }
    var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGKILL: the process gets no chance to clean up, as in a crash.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits up to `seconds` for the exit; returns the exit status or nil if still running.
    @discardableResult
    func terminate(waiting seconds: Double = 10) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        process.terminate()
        return waitForExit(seconds)
    }

    func waitForExit(_ seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}
