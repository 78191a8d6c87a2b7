import Foundation
import Testing

/// A client that shares no code with PushBus: Python and pyzmq, written from RFC 7.
@Suite("interop (integration)")
struct InteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("interop/mdp_client.py").path

    @Test func aPlainPythonMDPClientDrivesTheGateway() throws {
        let stack = try TestStack().start()
        _ = try stack.client().json("app.create", ["name": "py-app".json, "app_key": "py-app".json])
        let python = try RunningProcess("/usr/bin/env", ["python3", Self.script, stack.endpoint],
                                        logDirectory: stack.dataDirectory)
        let status = python.waitForExit(60)
        #expect(status == 0, "\(python.output)")
        #expect(python.output.contains("interop ok"))
    }
}
