import Foundation
import Testing
@testable import FuzzKit

/// 100,000 random and mutated messages against the real gateway, registration and tagging:
/// no process dies, every addressable message is answered, memory stays flat.
@Suite("wire fuzzing (integration)", .serialized)
struct WireFuzzTests {
    func rssKilobytes(_ process: RunningProcess?) -> Int {
        guard let pid = process?.process.processIdentifier,
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return Int(line.split(separator: " ")[1]) ?? -1
    }

    @Test func hostileTrafficIsAnsweredAndTakesNothingDown() throws {
        // The settings docs/security.md states its bound for (the default 32-MiB key cache), measured
        // from before the warm-up: a gateway that kept keys for the fuzzer's validly signed garbage
        // app_keys grew from 32 to 94 MB.
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "200", "--request-timeout-ms", "1000"])
            .start(["registration", "tagging"])
        let id = try stack.client().register(appKey: "fuzz", deviceID: "fuzz-device")
        let processes = [stack.gateway, stack.services["registration"], stack.services["tagging"]]
        let before = processes.map(rssKilobytes)

        let warmUp = try WireFuzzer(endpoint: stack.endpoint, messages: 10_000, seed: 1, registrationIDs: [id], secrets: stack.secrets).run()
        #expect(warmUp.replies == warmUp.addressable)

        let result = try WireFuzzer(endpoint: stack.endpoint, messages: 100_000, seed: 2, registrationIDs: [id], secrets: stack.secrets).run()
        #expect(result.sent == 100_000)
        #expect(result.addressable > 40_000)
        #expect(result.replies == result.addressable, "every addressable message gets a reply")
        #expect(result.codes["0", default: 0] < result.replies, "\(result.codes)")
        #expect(processes.allSatisfy { $0?.isRunning == true }, "no process died")
        let after = processes.map(rssKilobytes)
        for (name, (start, end)) in zip(["gateway", "registration", "tagging"], zip(before, after)) {
            #expect(end - start < 40_000, "\(name)'s memory stays flat: \(start) kB → \(end) kB")
        }
        #expect(try stack.client().register(appKey: "fuzz", deviceID: "fuzz-device", registrationID: id) == id, "still serving")
    }
}
