import Credentials
import Foundation
import ZeroMQ

/// The gateway's CURVE key pair for a data directory: `curve.secret` (mode 0600), made on first use.
enum CurveKeyFile {
    static func load(dataDirectory: String) throws -> (keys: CurveKeys, path: String) {
        try PrivateFiles.prepareDirectory(dataDirectory)
        let path = (dataDirectory as NSString).appendingPathComponent("curve.secret")
        if !FileManager.default.fileExists(atPath: path) {
            let keys = try CurveKeys.generate()
            guard FileManager.default.createFile(atPath: path, contents: Data((keys.secretKey + "\n").utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw LauncherError.curveKeyFile(path: path)
            }
        }
        let secret = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return (try CurveKeys(secretKey: secret), path)
    }
}
