import Schema
import SQLite

extension CommandError {
    /// The answer to a request that ran into a damaged database file (`SQLiteError.isDamage`): 6024
    /// saying so, with SQLite's reason. No retry helps; the file needs restoring, and the service's
    /// log names it (a client is not told server paths).
    static func damagedDatabase(_ error: SQLiteError) -> CommandError {
        CommandError(.internalError, "the database is damaged: \(error.message)")
    }
}
