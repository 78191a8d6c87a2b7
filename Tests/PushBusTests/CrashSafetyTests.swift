import Client
import Foundation
import JSON
import Majordomo
import Schema
import Testing
import ZeroMQ

/// Load on the real stack while the tagging process is killed (SIGKILL) at random moments and
/// restarted: every acknowledged write is there afterwards, and no write is half there. Run twice:
/// with the default checkpointing, and with a WAL that starts over past 64 frames and a pass every
/// 5 ms, so the kills also land while the writer copies the WAL's last frames before a transaction.
@Suite("crash safety (integration)", .serialized)
struct CrashSafetyTests {
    @Test(arguments: [[], ["--wal-restart-frames", "64", "--checkpoint-ms", "5"]])
    func killedMidLoadAcknowledgedWritesSurviveAndNoneIsHalfApplied(tagging: [String]) throws {
        let stack = try TestStack(gatewayArguments: ["--heartbeat-ms", "100", "--request-timeout-ms", "3000"])
        try stack.startGateway()
        try stack.startService("tagging", extra: tagging)
        let devices = (0..<5000).map { String(format: "%020x", 0xC0FFEE00 + $0) }
        let caller = try Socket.dealer(stack.context, connect: stack.endpoint)
        var poller = Poller([caller])
        var acknowledged = Set<Int>()
        var answered = Set<Int>()
        var command = 0
        var random = SystemRandomNumberGenerator()

        // Each command adds three tags of its own to one device, so a later read tells whether it
        // applied fully, partly or not at all.
        func tags(_ n: Int) -> [String] { ["c\(n)_a", "c\(n)_b", "c\(n)_c"] }

        for _ in 0..<4 {
            let first = command
            for _ in 0..<3000 {
                let payload = TagsChange(appKey: "crash", registrationID: devices[command % devices.count], tags: tags(command))
                try caller.send(stack.signed("tags.add", String(decoding: WireCodec.encode(Envelope(payload, seq: command)), as: UTF8.self)))
                command += 1
            }
            usleep(UInt32.random(in: 2_000...40_000, using: &random))
            stack.services["tagging"]?.kill()
            // Every request of the round gets an answer: its reply, or 6002 for what the dead worker held.
            while answered.count < command, try poller.poll(timeout: 10_000).contains(caller) {
                while let message = try caller.receive(wait: false) {
                    let reply = try JSONDecoder().decode(JSONValue.self, from: message[3])
                    guard let seq = reply["seq"]?.number.map({ Int($0) }) else { continue }
                    answered.insert(seq)
                    if reply.code == 0 { acknowledged.insert(seq) }
                }
            }
            #expect(answered.count == command, "no request of round \(first / 3000) left without an answer")
            try stack.waitForServiceGone("tagging")
            try stack.startService("tagging", extra: tagging)
        }

        let client = try stack.client()
        var held: [String: Set<String>] = [:]
        for device in devices {
            let reply = try client.json("tags.get", ["app_key": "crash".json, "registration_id": device.json])
            if case .array(let items)? = reply["tags"] { held[device] = Set(items.compactMap(\.string)) }
        }
        var lost = 0, partial = 0, unacknowledgedApplied = 0
        for n in 0..<command {
            let present = tags(n).filter { held[devices[n % devices.count]]?.contains($0) == true }.count
            if acknowledged.contains(n) && present != 3 { lost += 1 }
            if present != 0 && present != 3 { partial += 1 }
            if !acknowledged.contains(n) && present == 3 { unacknowledgedApplied += 1 }
        }
        // The audience index (a file of its own, whose commits wait for no disk, built again after each
        // kill) finds exactly the devices whose rows carry the tag.
        var misplaced: [Int] = []
        for first in stride(from: 0, to: command, by: 20) {
            let group = Array(first..<min(first + 20, command))
            let reply = try client.json("audience.resolve", ["app_key": "crash".json, "tag": .array(group.map { tags($0)[0].json })])
            guard case .array(let items)? = reply["registration_ids"] else { misplaced.append(first); continue }
            let carrying = group.filter { held[devices[$0 % devices.count]]?.contains(tags($0)[0]) == true }.map { devices[$0 % devices.count] }
            if Set(items.compactMap(\.string)) != Set(carrying) { misplaced.append(first) }
        }
        #expect(misplaced.isEmpty, "the audiences of the tags from commands \(misplaced.prefix(5)) differ from the devices' tags")
        #expect(acknowledged.count > 0 && acknowledged.count < command, "the kills landed mid-load (\(acknowledged.count) of \(command) acknowledged)")
        #expect(lost == 0, "every acknowledged write is present")
        #expect(partial == 0, "no write is half-applied")
        // A write committed just before the kill may have lost only its reply: present in full, never partly.
        _ = unacknowledgedApplied
    }
}
