import Foundation

/// Where the built executables and a fresh temporary directory are, for tests that run them.
enum TestPaths {
    /// The directory holding `gateway`, `registration`, `pushctl`, `pushbus`: `PUSHBUS_BIN_DIR`, or the
    /// directory of the running test bundle (SwiftPM builds everything into one folder).
    static let binDirectory: String = {
        if let dir = ProcessInfo.processInfo.environment["PUSHBUS_BIN_DIR"] { return dir }
        var url = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("gateway").path) { return url.path }
        }
        return ".build/debug"
    }()

    static func executable(_ name: String) -> String { "\(binDirectory)/\(name)" }

    /// A new empty directory under the system's temporary directory.
    static func temporaryDirectory(_ label: String = "pushbus") -> String {
        let path = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
