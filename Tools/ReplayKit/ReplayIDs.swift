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
    /// The mapping in `path`; empty when there is no such file yet. The object is parsed once and
    /// its members walked (a keyed decode looks each key up anew: minutes for a million IDs); of a
    /// key given twice, the last value counts.
    public static func read(_ path: String) throws(ReplayIDsError) -> [String: String] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let malformed = ReplayIDsError(path: path, problem: "is not a JSON object of recorded IDs to this stack's")
        guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: path)),
              case .object(let object)? = try? JSONTreeDecoder().decode(JSONValue.self, from: bytes) else { throw malformed }
        var mapping: [String: String] = [:]
        mapping.reserveCapacity(object.members.count)
        for (recorded, given) in object.members {
            guard case .string(let id) = given else { throw malformed }
            mapping[recorded] = id
        }
        return mapping
    }

    /// Writes `mapping` to `path` whole: a temporary file beside it, renamed over it.
    public static func write(_ mapping: [String: String], to path: String) throws(ReplayIDsError) {
        let temporary = temporaryPath(for: path)
        do {
            try WireCodec.encode(mapping).write(to: URL(fileURLWithPath: temporary))
        } catch {
            throw ReplayIDsError(path: path, problem: "cannot be written (\(temporary): \(error.localizedDescription))")
        }
        guard rename(temporary, path) == 0 else {
            throw ReplayIDsError(path: path, problem: "cannot be written (\(String(cString: strerror(errno))))")
        }
    }

    /// Throws unless `path` can be written, so a run does not send its whole load and then lose the
    /// IDs it was given: a place for the temporary file is made and removed again.
    public static func checkWritable(_ path: String) throws(ReplayIDsError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ReplayIDsError(path: path, problem: "is a directory")
        }
        let temporary = temporaryPath(for: path)
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
            throw ReplayIDsError(path: path, problem: "cannot be written (\(temporary) cannot be made)")
        }
        unlink(temporary)
    }

    /// Where the file is written before it is renamed over `path`.
    private static func temporaryPath(for path: String) -> String { path + ".tmp" }
}

/// An IDs file that cannot be read as one, or cannot be written.
public struct ReplayIDsError: Error, CustomStringConvertible {
    public let path: String
    public let problem: String
    public var description: String { "the IDs file \(path) \(problem)" }
}
