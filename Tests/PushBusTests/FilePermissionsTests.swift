import Client
import Foundation
import Schema
import Testing

/// Device tokens, phone numbers, MA data and the secrets are readable by the user running PushBus
/// only: its data directory is 0700 and every file in it 0600, whichever process made them.
@Suite("file permissions (integration)", .serialized)
struct FilePermissionsTests {
    /// The permission bits of `path`, or nil when it cannot be read.
    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// Every entry of `directory` whose mode is not `wanted`, with its mode in octal.
    func looser(in directory: String, than wanted: mode_t) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted().compactMap { name in
            let found = mode("\(directory)/\(name)")
            return found == wanted ? nil : "\(name) \(String(found ?? 0, radix: 8))"
        }
    }

    @Test func aFreshDataDirectoryItsDatabasesAndBackupsAreTheOwnersOnly() throws {
        let directory = TestPaths.temporaryDirectory("private") + "/data"
        let stack = try TestStack(dataDirectory: directory).start(["registration", "tagging"])
        let client = try stack.client()
        let id = try client.register()
        #expect(try client.json("tags.add", ["app_key": "app1".json, "registration_id": id.json, "tags": .array(["vip".json])]).code == 0)

        #expect(mode(directory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(Set(files).isSuperset(of: ["admin.secret", "server.key", "registration.sqlite", "registration.sqlite-wal",
                                           "registration.sqlite-shm", "tagging.sqlite"]), "\(files)")
        let loose = try looser(in: directory, than: 0o600)
        #expect(loose == [])

        let out = TestPaths.temporaryDirectory("private") + "/backup"
        let backup = try RunningProcess(TestPaths.executable("pushbus-backup"), ["--data-dir", directory, "--out", out],
                                        logDirectory: stack.logDirectory)
        #expect(backup.waitForExit(30) == 0, "\(backup.output)")
        #expect(mode(out) == 0o700)
        let looseCopies = try looser(in: out, than: 0o600)
        #expect(looseCopies == [])
    }

    @Test func anExistingDataDirectoryOpenToOthersIsClosedAtStartWithALogLine() throws {
        let directory = TestPaths.temporaryDirectory("open") + "/data"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        #expect(FileManager.default.createFile(atPath: "\(directory)/registration.sqlite", contents: nil,
                                               attributes: [.posixPermissions: 0o644]), "an empty database, as an older release left it")
        let stack = try TestStack(dataDirectory: directory).start(["registration"])
        _ = try stack.client().register()

        #expect(mode(directory) == 0o700)
        let loose = try looser(in: directory, than: 0o600)
        #expect(loose == [])
        let said = (stack.gateway?.output ?? "") + (stack.services["registration"]?.output ?? "")
        #expect(said.contains("data directory was open to other users"), "\(said)")
    }
}
