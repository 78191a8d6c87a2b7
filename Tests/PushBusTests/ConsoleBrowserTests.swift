import Foundation
import JSON
import Schema
import Testing

/// The operators' console in a real headless Chromium driven by Selenium (Tests/console/console_check.py)
/// against the real gateway, services, api and the APNs stand-in: sign in as admin, create an app and
/// upload its .p8; as the app, compose a push to a tag (its estimate, its preview), see it reach the
/// stand-in and the history reach sent, look a device up, schedule a push and see it fire, chart MA
/// events; a device's `<img onerror>` is text; no change without the CSRF token; no console errors.
/// Screenshots of each page go to `.build/console-screenshots`.
@Suite("console in a browser (integration)", .serialized)
struct ConsoleBrowserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("Tests/console/console_check.py").path

    @Test("every page in Chromium: sign-in, apps and a .p8, compose to a tag, history to sent, a device, a schedule firing, statistics; XSS as text; CSRF refused")
    func everyPageInABrowser() throws {
        let apns = try ApnsStandIn()
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "3000"])
            .start(["registration", "tagging", "badge", "scheduler", "analytics"])
        try stack.startService("push")
        try stack.startService("apns", extra: apns.senderFlags)
        try stack.startService("channel", extra: ["--listen", "127.0.0.1:\(Ports.free())"])
        let api = try ApiServer(stack: stack)
        let config: JSONValue = .object([
            "console": .string(api.base + "/console/"), "admin_secret": .string(stack.secrets.admin),
            "p8": .string(apns.directory + "/AuthKey.p8"), "team_id": .string(ApnsStandIn.teamID), "key_id": .string(ApnsStandIn.keyID),
            "bundle_id": .string(ApnsStandIn.bundleID), "apns_log": .string(apns.directory + "/requests.jsonl"),
            "pushctl": .string(TestPaths.executable("pushctl")), "endpoint": .string(stack.endpoint), "data_dir": .string(stack.dataDirectory),
            "screenshots": .string(Self.root.appendingPathComponent(".build/console-screenshots").path),
        ])
        let path = stack.dataDirectory + "/console.json"
        try WireCodec.encode(config).write(to: URL(fileURLWithPath: path))
        let browser = try RunningProcess("/usr/bin/env", ["python3", Self.script, path], logDirectory: stack.logDirectory)
        let status = browser.waitForExit(300) ?? -1
        #expect(status == 0 && browser.output.contains("\nOK"), "\(browser.output)\napi log:\n\(api.process.output.suffix(2000))")
    }
}
