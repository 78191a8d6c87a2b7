import Foundation
import Testing

/// The SDK's flows run through `pushbus-device` from a shell script (Tests/device/device_check.sh)
/// against the real processes over HTTPS and wss with a test CA.
@Suite("pushbus-device from the shell (integration)", .serialized)
struct DeviceCLITests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("device/device_check.sh").path

    @Test func theSimulatedPhoneRunsEveryFlow() throws {
        let setup = try SDKTests.Setup(withPush: true)
        try setup.stack.startService("channel", extra: setup.channelFlags)
        let environment = [
            "DEVICE": TestPaths.executable("pushbus-device"), "SERVER": "https://localhost:\(setup.apiPort)",
            "CHANNEL": "wss://localhost:\(setup.channelPort)/v1/channel", "CA": setup.certificates.ca, "APP_KEY": setup.appKey,
            "STATE": setup.directory + "/cli-phone", "PUSHCTL": TestPaths.executable("pushctl"), "ENDPOINT": setup.stack.endpoint,
            "DATA_DIR": setup.stack.dataDirectory,
        ]
        let shell = try RunningProcess("/usr/bin/env", environment.map { "\($0.key)=\($0.value)" } + ["bash", Self.script],
                                       logDirectory: setup.stack.logDirectory)
        let status = shell.waitForExit(120)
        #expect(status == 0 && shell.output.contains("OK "), "\(shell.output)")
    }
}
