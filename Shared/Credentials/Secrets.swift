import Foundation

/// The deployment's secrets, hex text files in the data directory, made at first start with mode
/// 0600 (DESIGN.md, Security): `admin.secret` (the admin's key) and `server.key` (derives every app's
/// master secret and every device's secret, so the gateway checks a proof without a lookup).
public struct Secrets: Sendable {
    public let admin: String
    public let serverKey: String

    public init(admin: String, serverKey: String) {
        self.admin = admin
        self.serverKey = serverKey
    }

    /// Reads both files in `directory` (created 0700 if needed, see `PrivateFiles`), creating whichever
    /// is missing. Two processes starting at once agree: a file is created exclusively, and the one
    /// that loses the race reads the winner's.
    public static func load(directory: String) throws -> Secrets {
        try PrivateFiles.prepareDirectory(directory)
        return Secrets(admin: try file(directory, "admin.secret"), serverKey: try file(directory, "server.key"))
    }

    /// Reads the files only; nil when they do not exist (a client on the operator's machine).
    public static func read(directory: String) -> Secrets? {
        func text(_ name: String) -> String? {
            (try? String(contentsOfFile: (directory as NSString).appendingPathComponent(name), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let admin = text("admin.secret"), let key = text("server.key"), !admin.isEmpty, !key.isEmpty else { return nil }
        return Secrets(admin: admin, serverKey: key)
    }

    private static func file(_ directory: String, _ name: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd >= 0 {
            let secret = RandomKey.hex(bytes: 32) + "\n"
            _ = secret.withCString { write(fd, $0, strlen($0)) }
            fsync(fd)
            close(fd)
        }
        for _ in 0..<100 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
               text.count == 64 { return text }
            usleep(10_000)  // another process has just created it and is writing it
        }
        throw CredentialsError.unreadableSecret(path: path)
    }

    /// The master secret of an app: hex(HMAC-SHA256(server.key, "app:" + app_key)).
    public func masterSecret(appKey: String) -> String { HMAC.sha256Hex(key: serverKey, message: "app:" + appKey) }

    /// The credential of one of PushBus's own services (`service` is its MDP name, e.g. `tagging/1`):
    /// hex(HMAC-SHA256(server.key, "service:" + service)). A worker proves it with its READY, and a
    /// publisher signs its events with it; only a process holding server.key can make one.
    public func serviceSecret(_ service: String) -> String { HMAC.sha256Hex(key: serverKey, message: "service:" + service) }

    /// The secret of a device: hex(HMAC-SHA256(server.key, app_key + "/" + registration_id)).
    public func deviceSecret(appKey: String, registrationID: String) -> String {
        HMAC.sha256Hex(key: serverKey, message: appKey + "/" + registrationID)
    }
}
