import Client
import Foundation
import Schema
import SQLite
import Testing

/// A database file that is not one, or is damaged, is named wherever it shows: a service refuses to
/// start on it (exit 1, the log naming the file), and a request that runs into damage is answered
/// 6024 saying the database is damaged, not that a write failed.
@Suite("damaged databases (integration)", .serialized)
struct DamagedDatabaseTests {
    @Test func aServiceStartedOnAFileThatIsNotADatabaseExits1NamingIt() throws {
        let directory = TestPaths.temporaryDirectory("garbage")
        let path = "\(directory)/registration.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let service = try RunningProcess(TestPaths.executable("registration"),
                                         ["--endpoint", "tcp://127.0.0.1:\(Ports.free())", "--data-dir", directory],
                                         logDirectory: directory)
        #expect(service.waitForExit(30) == 1)
        #expect(service.output.contains("\(path): file is not a database"), "\(service.output)")
    }

    @Test func aReadThatRunsIntoDamageIsAnswered6024SayingSoAndTheLogNamesTheFile() throws {
        let stack = try TestStack().start(["registration"])
        let client = try stack.client()
        let ids = try (0..<400).map { try client.register(deviceID: "damaged-\($0)") }
        #expect(stack.services["registration"]?.terminate() == 0, "a clean stop copies the WAL into the file")
        let path = "\(stack.dataDirectory)/registration.sqlite"
        try #require(try damageBelowTheRoots(of: "devices", in: path) > 0)
        try stack.startService("registration")

        let reply = try client.json("device.get", ["app_key": "app1".json, "registration_id": ids[200].json])
        #expect(reply.code == 6024)
        let message = reply["message"]?.string ?? ""
        #expect(message.contains("damaged") && message.contains("malformed"), "\(reply)")
        let log = stack.services["registration"]?.output ?? ""
        #expect(log.contains("database damaged") && log.contains(path), "\(log)")
    }

    /// Overwrites, in the middle of the file, every page of `table` and its indexes but their root
    /// pages (so the schema still reads and the service starts); returns how many.
    func damageBelowTheRoots(of table: String, in path: String) throws -> Int {
        let (pageSize, pages): (Int, [Int]) = try {
            let db = try Database(path: path)
            let size = try db.value("PRAGMA page_size").int ?? 4096
            let pages = try db.rows("""
                SELECT pageno FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)
                AND pageno NOT IN (SELECT rootpage FROM sqlite_master) ORDER BY pageno
                """, table).compactMap(\.[0].int)
            return (size, pages)
        }()
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? file.close() }
        for page in pages {
            try file.seek(toOffset: UInt64((page - 1) * pageSize))
            try file.write(contentsOf: Data(repeating: 0xA5, count: pageSize))
        }
        try file.synchronize()
        return pages.count
    }
}
