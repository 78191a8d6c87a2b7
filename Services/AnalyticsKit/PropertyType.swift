import JSON
import Schema

/// The type a user property, or an object subfield, has in the app's metadata. The first value stored
/// under a name fixes it; a later value of another type is refused (6017).
enum PropertyType: String, Sendable {
    case string, number, boolean
    case stringList = "string_list"
    case object
    case objectArray = "object_array"

    /// The type of a plain value (string, finite number, boolean, array of strings); nil for anything else.
    static func plain(of value: JSONValue) -> PropertyType? {
        switch value {
        case .string: .string
        case .number(let number): number.isFinite ? .number : nil
        case .bool: .boolean
        case .array(let items): items.allSatisfy { $0.string != nil } ? .stringList : nil
        case .null, .object: nil
        }
    }
}
