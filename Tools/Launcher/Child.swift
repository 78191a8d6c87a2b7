import Foundation

/// One supervised child process: started, its output prefixed line by line, restarted with
/// exponential backoff when it dies unless the launcher is stopping.
final class Child: @unchecked Sendable {
    let name: String
    let executable: String
    let arguments: [String]
    private let output: PrefixedOutput
    private let lock = NSLock()
    private var process: Process?
    private var stopping = false
    private var backoff = 0.5
    private var startedAt = Date()

    init(name: String, executable: String, arguments: [String], output: PrefixedOutput) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.output = output
    }

    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output.pipe(for: name)
        process.standardError = output.pipe(for: name)
        process.terminationHandler = { [weak self] ended in self?.ended(ended) }
        do {
            try process.run()
            self.process = process
            startedAt = Date()
        } catch {
            output.say("pushbus: cannot start \(name): \(error)")
            scheduleRestart()
        }
    }

    /// Sends SIGTERM; after `grace` seconds SIGKILL. Returns when the child has exited.
    func stop(grace: Double) {
        lock.lock()
        stopping = true
        let process = self.process
        lock.unlock()
        guard let process, process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    private func ended(_ process: Process) {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return }
        output.say("pushbus: \(name) exited (status \(process.terminationStatus)), restarting in \(backoff) s")
        scheduleRestart()
    }

    /// Called with the lock held.
    private func scheduleRestart() {
        if Date().timeIntervalSince(startedAt) > 60 { backoff = 0.5 }
        let delay = backoff
        backoff = min(backoff * 2, 30)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.start() }
    }
}
