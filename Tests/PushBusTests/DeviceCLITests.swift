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

    /// An app killed while its command waits for a server that does not answer: the next launch
    /// sends it first, then what it was asked.
    @Test func aCommandMadeOfflineIsSentByTheNextLaunch() throws {
        let setup = try SDKTests.Setup()
        let phone = ["--server", "https://localhost:\(setup.apiPort)", "--ca-file", setup.certificates.ca, "--app-key", setup.appKey,
                     "--state", setup.directory + "/offline-phone"]
        let device = TestPaths.executable("pushbus-device")
        let register = try RunningProcess(device, phone + ["register"], logDirectory: setup.stack.logDirectory)
        #expect(register.waitForExit(30) == 0, "\(register.output)")
        let gateway = try #require(setup.stack.gateway?.process.processIdentifier)
        kill(gateway, SIGSTOP)
        let offline = try RunningProcess(device, phone + ["tags", "add", "offline"], logDirectory: setup.stack.logDirectory)
        sleep(3)
        #expect(offline.isRunning, "the command should still wait for the server: \(offline.output)")
        offline.kill()
        _ = offline.waitForExit(10)
        let state = try String(contentsOfFile: setup.directory + "/offline-phone/pushbus-device.json", encoding: .utf8)
        #expect(state.contains("tags.add"), "the unanswered command is not in the journal: \(state)")
        kill(gateway, SIGCONT)
        let next = try RunningProcess(device, phone + ["tags", "get"], logDirectory: setup.stack.logDirectory)
        #expect(next.waitForExit(60) == 0, "\(next.output)")
        #expect(next.output.contains("\"offline\""), "the next launch did not send it: \(next.output)")
        let after = try String(contentsOfFile: setup.directory + "/offline-phone/pushbus-device.json", encoding: .utf8)
        #expect(!after.contains("tags.add"), "answered, it stays in the journal")
    }
}
