import Credentials
import Foundation
import Runtime
import SQLite

// Copies every service database of a data directory with SQLite's online backup API, while the
// services keep running; each copy is one consistent moment of its database. Restore: stop the
// services, put the copies (and admin.secret, server.key) back in the data directory, start again.
// The copies hold what the databases hold: the directory is 0700 and every copy 0600.
PrivateFiles.restrictNewFiles()
let options = BackupOptions.parseOrExit(program: "pushbus-backup", summary: "Online backup of every PushBus database in a data directory.")
do {
    guard let out = options.out else { throw UsageError("give --out DIR") }
    let source = options.dataDirectory
    try PrivateFiles.prepareDirectory(out)
    let files = try FileManager.default.contentsOfDirectory(atPath: source).filter { $0.hasSuffix(".sqlite") }.sorted()
    for file in files {
        let database = try Database(path: (source as NSString).appendingPathComponent(file))
        try database.execute("PRAGMA busy_timeout = 5000")
        try database.backup(to: (out as NSString).appendingPathComponent(file))
        print("backed up \(file)")
    }
    for secret in ["admin.secret", "server.key"] {
        let from = (source as NSString).appendingPathComponent(secret)
        guard FileManager.default.fileExists(atPath: from) else { continue }
        let to = (out as NSString).appendingPathComponent(secret)
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
        print("copied \(secret)")
    }
} catch let error as UsageError {
    Flags.exitUsage("pushbus-backup", error)
} catch {
    FileHandle.standardError.write(Data("pushbus-backup: \(error)\n".utf8))
    exit(1)
}
