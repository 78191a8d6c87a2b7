import Foundation
import Schema

/// Reads a recording: one `RecordedCall` per line, blank lines skipped, ordered by time.
public enum Recording {
    public struct BadLine: Error, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public static func read(_ path: String) throws -> [RecordedCall] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var calls: [RecordedCall] = []
        var lineNumber = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            do {
                calls.append(try RecordedCall(line: Data(line)))
            } catch {
                throw BadLine(line: lineNumber, reason: "not a recorded call: \(error)")
            }
        }
        // A stable sort keeps the file's order for calls recorded in the same millisecond.
        return calls.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }
}
