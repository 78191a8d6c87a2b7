import Foundation

/// Merges the children's output into the launcher's stdout, each line prefixed with its child's name.
final class PrefixedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let width: Int

    init(names: [String]) {
        width = names.map(\.count).max() ?? 8
    }

    /// A pipe whose lines come out as `name | line`.
    func pipe(for name: String) -> Pipe {
        let pipe = Pipe()
        let prefix = name.padding(toLength: width, withPad: " ", startingAt: 0) + " | "
        let pending = PendingLine()
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            for line in pending.lines(adding: data) { self?.say(prefix + line) }
        }
        return pipe
    }

    /// Writes one whole line.
    func say(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Bytes read so far that do not end in a newline yet.
private final class PendingLine: @unchecked Sendable {
    private var buffer = Data()

    func lines(adding data: Data) -> [String] {
        buffer.append(data)
        var lines: [String] = []
        while let newline = buffer.firstIndex(of: 0x0A) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
        return lines
    }
}
