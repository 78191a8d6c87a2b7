import Foundation
import JSON
import Schema

/// The IDs a stack gave out for recorded ones (registration IDs, EUIDs, app keys), kept in a file
/// between runs: a recording replayed in parts (the devices registered first, the load after, as the
/// benchmarks measure it) then reaches the devices the first part registered. Without it, a later
/// part signs for the recorded IDs themselves, which no device of this stack has.
///
/// The file is a JSON object, recorded ID to this stack's, written whole to a temporary file that is
/// then renamed over it: a run that dies leaves the file of the run before.
public enum ReplayIDs {
    /// The mapping in `path`; empty when there is no such file yet.
    public static func read(_ path: String) throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        do {
            return try JSONTreeDecoder().decode([String: String].self, from: try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch is DecodingError {
            throw ReplayIDsError(path: path)
        }
    }

    public static func write(_ mapping: [String: String], to path: String) throws {
        let temporary = path + ".tmp"
        try WireCodec.encode(mapping).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}

/// An IDs file that is not a JSON object of strings.
public struct ReplayIDsError: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "\(path) is not a JSON object of recorded IDs to this stack's" }
}
