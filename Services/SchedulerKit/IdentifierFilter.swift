import Schema

/// The `identifiers` of `local.find` and `local.remove`: null or [] admits every identifier.
struct IdentifierFilter {
    private let wanted: Set<String>?

    /// Most identifiers one call may name.
    static let maxCount = 1000

    /// Refuses more than `maxCount` identifiers (6017).
    init(_ identifiers: [String]?) throws(CommandError) {
        guard let identifiers, !identifiers.isEmpty else {
            wanted = nil
            return
        }
        guard identifiers.count <= Self.maxCount else { throw .invalid("more than \(Self.maxCount) identifiers") }
        wanted = Set(identifiers)
    }

    func admits(_ identifier: String) -> Bool { wanted?.contains(identifier) ?? true }
}
