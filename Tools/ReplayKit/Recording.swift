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
        for (number, line) in lines(of: data).enumerated() {
            guard data[line].contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            do {
                calls.append(try RecordedCall(line: data.subdata(in: line)))
            } catch {
                throw BadLine(line: number + 1, reason: "not a recorded call: \(error)")
            }
        }
        // A stable sort keeps the file's order for calls recorded in the same millisecond.
        return calls.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }

    /// Where each line of `data` lies (without its newline), found with memchr: splitting the Data
    /// itself went byte by byte through its subscript, a third of reading a large recording.
    private static func lines(of data: Data) -> [Range<Int>] {
        data.withUnsafeBytes { (file: UnsafeRawBufferPointer) -> [Range<Int>] in
            guard let base = file.baseAddress else { return [] }
            var lines: [Range<Int>] = []
            var start = 0
            while start <= file.count {
                let end = memchr(base + start, 0x0A, file.count - start).map { UnsafeRawPointer($0) - base } ?? file.count
                lines.append(data.startIndex + start..<data.startIndex + end)
                start = end + 1
            }
            return lines
        }
    }
}
