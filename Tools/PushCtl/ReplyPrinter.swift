import Foundation
import JSON
import Schema

/// Prints a reply for people: `key: value` lines, nested objects as dotted keys, sorted.
enum ReplyPrinter {
    static func lines(_ reply: JSONValue) -> [String] {
        guard case .object(var object) = reply else { return [text(reply)] }
        object["code"] = nil
        object["seq"] = nil
        var lines: [String] = []
        flatten(object.dictionary, prefix: "", into: &lines)
        return lines.isEmpty ? ["ok"] : lines
    }

    private static func flatten(_ object: [String: JSONValue], prefix: String, into lines: inout [String]) {
        for key in object.keys.sorted() {
            let name = prefix.isEmpty ? key : "\(prefix).\(key)"
            if case .object(let nested)? = object[key], !nested.isEmpty {
                flatten(nested.dictionary, prefix: name, into: &lines)
            } else if let value = object[key] {
                lines.append("\(name): \(text(value))")
            }
        }
    }

    private static func text(_ value: JSONValue) -> String {
        if case .string(let string) = value { return string }
        return String(decoding: WireCodec.encode(value), as: UTF8.self)
    }
}
