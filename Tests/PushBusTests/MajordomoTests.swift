import Foundation
import Majordomo
import Testing
import ZeroMQ

@Suite("MDP/0.1 frames")
struct MajordomoTests {
    static let workerMessages: [WorkerMessage] = [
        .ready(service: "registration", credit: nil),
        .ready(service: "registration", credit: 64),
        .request(client: Data([0, 1, 2, 3]), body: [Data("device.get".utf8), Data("{}".utf8)]),
        .reply(client: Data([9]), body: [Data(#"{"code":0}"#.utf8)]),
        .request(client: Data([1]), body: []),
        .heartbeat,
        .disconnect,
    ]

    @Test(arguments: workerMessages)
    func workerMessageRoundTrips(_ message: WorkerMessage) throws {
        #expect(try WorkerMessage(frames: message.frames.frames[...]) == message)
    }

    @Test func clientMessageRoundTrips() throws {
        let message = ClientMessage(service: "device", strings: ["tags.add", "{}"])
        #expect(try ClientMessage(frames: message.frames.frames[...]) == message)
        #expect(message.frames.frames[1] == Data("MDPC01".utf8))
    }

    @Test func wireLayoutFollowsRFC7() {
        let ready = WorkerMessage.ready(service: "echo", credit: 8).frames
        #expect(ready == Message([Data(), Data("MDPW01".utf8), Data([1]), Data("echo".utf8), Data("8".utf8)]))
        let reply = WorkerMessage.reply(client: Data("c".utf8), body: [Data("x".utf8)]).frames
        #expect(reply == Message([Data(), Data("MDPW01".utf8), Data([3]), Data("c".utf8), Data(), Data("x".utf8)]))
    }

    @Test func inboundTellsClientsFromWorkers() throws {
        let sender = Data("id".utf8)
        let fromClient = Message([sender] + ClientMessage(service: "s", strings: ["a"]).frames.frames)
        let fromWorker = Message([sender] + WorkerMessage.heartbeat.frames.frames)
        #expect(try Inbound(fromClient) == .client(sender: sender, ClientMessage(service: "s", strings: ["a"])))
        #expect(try Inbound(fromWorker) == .worker(sender: sender, .heartbeat))
    }

    @Test func malformedWorkerFramesThrow() {
        let bad: [[Data]] = [
            [],
            [Data()],
            [Data("x".utf8), Data("MDPW01".utf8), Data([1])],
            [Data(), Data("MDPW02".utf8), Data([4])],
            [Data(), Data("MDPW01".utf8)],
            [Data(), Data("MDPW01".utf8), Data([9])],
            [Data(), Data("MDPW01".utf8), Data([1, 1])],
            [Data(), Data("MDPW01".utf8), Data([1])],
            [Data(), Data("MDPW01".utf8), Data([1]), Data()],
            [Data(), Data("MDPW01".utf8), Data([1]), Data("s".utf8), Data("0".utf8)],
            [Data(), Data("MDPW01".utf8), Data([1]), Data("s".utf8), Data("many".utf8)],
            [Data(), Data("MDPW01".utf8), Data([1]), Data("s".utf8), Data("1".utf8), Data("x".utf8)],
            [Data(), Data("MDPW01".utf8), Data([1]), Data([0xFF, 0xFE])],
            [Data(), Data("MDPW01".utf8), Data([2])],
            [Data(), Data("MDPW01".utf8), Data([3]), Data("c".utf8)],
            [Data(), Data("MDPW01".utf8), Data([3]), Data("c".utf8), Data("not empty".utf8)],
        ]
        for frames in bad {
            #expect(throws: MDPError.self) { try WorkerMessage(frames: frames[...]) }
        }
    }

    @Test func malformedClientFramesThrow() {
        let bad: [[Data]] = [
            [],
            [Data("MDPC01".utf8), Data("s".utf8)],
            [Data(), Data("MDPC02".utf8), Data("s".utf8)],
            [Data(), Data("MDPC01".utf8)],
            [Data(), Data("MDPC01".utf8), Data()],
            [Data(), Data("MDPC01".utf8), Data(repeating: 0x61, count: 256)],
            [Data(), Data("MDPC01".utf8), Data([0xC3, 0x28])],
        ]
        for frames in bad {
            #expect(throws: MDPError.self) { try ClientMessage(frames: frames[...]) }
        }
    }

    @Test func everyTruncationOfAValidMessageIsHandled() {
        for message in Self.workerMessages {
            let frames = message.frames.frames
            for cut in 0..<frames.count {
                _ = try? WorkerMessage(frames: frames.prefix(cut))
            }
        }
        let sender = Data("s".utf8)
        let full = [sender] + ClientMessage(service: "device", strings: ["a", "b"]).frames.frames
        for cut in 0..<full.count {
            do {
                _ = try Inbound(Message(Array(full.prefix(cut))))
            } catch {
                #expect(cut < 4, "only a cut before the service frame may fail")
            }
        }
    }

    @Test func randomFramesNeverCrash() {
        var generator = TestRandom()
        let headers = [Data(), Data("MDPC01".utf8), Data("MDPW01".utf8), Data([1]), Data([2]), Data([3])]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...7, using: &generator)
            let frames = (0..<count).map { _ -> Data in
                if Bool.random(using: &generator) { return headers.randomElement(using: &generator)! }
                return Data((0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            }
            _ = try? Inbound(Message(frames))
        }
    }
}
