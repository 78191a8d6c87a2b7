/// The statements of the savepoint at one nesting depth (`sp1`, `sp2`, …), made once per depth: a
/// batch opens one savepoint per request, and building the text each time cost a string or two.
struct SavepointSQL {
    let begin: String
    let release: String
    let rollback: String

    private init(depth: Int) {
        begin = "SAVEPOINT sp\(depth)"
        release = "RELEASE sp\(depth)"
        rollback = "ROLLBACK TO sp\(depth)"
    }

    /// Depths made up front; deeper ones (never used by the services) are made when asked.
    private static let common = (0...8).map(SavepointSQL.init(depth:))

    static func at(depth: Int) -> SavepointSQL {
        depth < common.count ? common[depth] : SavepointSQL(depth: depth)
    }
}
