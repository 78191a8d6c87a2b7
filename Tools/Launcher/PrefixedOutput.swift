import Foundation

/// Merges the children's output into the launcher's stdout, each line prefixed with its child's name.
final class PrefixedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let width: Int

    init(names: [String]) {
        width = names.map(\.count).max() ?? 8
    }

    /// A pipe whose lines come out as `name | line`, read by a thread of its own until the end of
    /// the stream (the child's exit), which then ends. Not FileHandle's `readabilityHandler`: with
    /// children restarted and their pipes released, its libdispatch sources crashed the launcher
    /// (`_dispatch_event_loop_drain`, a bad pointer) in about one restart in three.
    func pipe(for name: String) -> Pipe {
        let pipe = Pipe()
        let prefix = name.padding(toLength: width, withPad: " ", startingAt: 0) + " | "
        let pending = PendingLine()
        let reader = Thread { [weak self] in
            let handle = pipe.fileHandleForReading
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                for line in pending.lines(adding: data) { self?.say(prefix + line) }
            }
        }
        reader.name = "output-\(name)"
        reader.start()
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
