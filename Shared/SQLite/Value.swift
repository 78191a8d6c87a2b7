import Foundation

/// A value SQLite stores in a column or binds to a parameter.
public enum Value: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    public var int: Int? { if case .integer(let v) = self { return Int(v) } else { return nil } }
    public var double: Double? {
        switch self {
        case .real(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }
    public var string: String? { if case .text(let v) = self { return v } else { return nil } }
    public var data: Data? { if case .blob(let v) = self { return v } else { return nil } }
    public var isNull: Bool { self == .null }
}

/// A Swift value that binds to a statement parameter.
public protocol Bindable {
    var sqliteValue: Value { get }
}

extension Int: Bindable { public var sqliteValue: Value { .integer(Int64(self)) } }
extension Int64: Bindable { public var sqliteValue: Value { .integer(self) } }
extension Double: Bindable { public var sqliteValue: Value { .real(self) } }
extension Bool: Bindable { public var sqliteValue: Value { .integer(self ? 1 : 0) } }
extension String: Bindable { public var sqliteValue: Value { .text(self) } }
extension Data: Bindable { public var sqliteValue: Value { .blob(self) } }
extension Value: Bindable { public var sqliteValue: Value { self } }
extension Optional: Bindable where Wrapped: Bindable {
    public var sqliteValue: Value { self?.sqliteValue ?? .null }
}
