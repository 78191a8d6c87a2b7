import Client
import Credentials
import Foundation
import JSON
import Majordomo
import Schema
import Testing
import ZeroMQ
@testable import Events
@testable import Runtime

/// How a subscriber catches up: `events.fetch` with topics, against the real registration worker,
/// and the sweep asking only the services that publish what the subscriber follows.
@Suite("event catch-up (integration)", .serialized)
struct EventCatchUpTests {
    func fetch(_ client: MajordomoClient, _ request: EventFetch) throws -> FetchedEvents {
        let body = try client.request("registration", [Data(EventFetch.command.utf8), WireCodec.encode(request)])
        let reply = try JSONDecoder().decode(Reply<FetchedEvents>.self, from: try #require(body.first))
        return try #require(reply.body)
    }

    func sequences(_ fetched: FetchedEvents) throws -> [Int64] {
        try fetched.events.map { try #require(try JSONDecoder().decode(JSONValue.self, from: Data($0.event.utf8))["seq"]?.number.map(Int64.init)) }
    }

    @Test func aFetchWithTopicsReturnsOnlyThoseAndHowFarItLooked() throws {
        let stack = try TestStack().start()
        let client = try stack.client()
        let gone = try client.register()
        _ = try client.register()
        _ = try client.json("device.delete", ["app_key": .string("app1"), "registration_id": .string(gone)])
        _ = try client.register()

        let all = try fetch(client, EventFetch(publisher: "registration", after: 0))
        let deleted = try fetch(client, EventFetch(publisher: "registration", after: 0, topics: [Topic.deviceDeleted.rawValue]))
        let allSequences = try sequences(all)
        let deletedSequences = zip(all.events, allSequences).filter { $0.0.topic == Topic.deviceDeleted.rawValue }.map(\.1)
        #expect(allSequences.count == 4 && all.through == allSequences.last)
        #expect(deleted.events.map(\.topic) == [Topic.deviceDeleted.rawValue])
        #expect(try sequences(deleted) == deletedSequences)
        #expect(deleted.through == all.through, "the cursor moves past the events not asked for")

        let firstTwo = try fetch(client, EventFetch(publisher: "registration", after: 0, limit: 2))
        #expect(try sequences(firstTwo) == Array(allSequences.prefix(2)) && firstTwo.through == allSequences[1], "a full page ends at its last event")
        let registered = try fetch(client, EventFetch(publisher: "registration", after: 0, limit: 1, topics: [Topic.deviceRegistered.rawValue]))
        #expect(registered.events.map(\.topic) == [Topic.deviceRegistered.rawValue] && registered.through == allSequences[0])
        let past = try fetch(client, EventFetch(publisher: "registration", after: all.through ?? 0, topics: [Topic.deviceDeleted.rawValue]))
        #expect(past.events.isEmpty && past.through == nil, "nothing after the last event")
    }

    /// An answer's `through` and `epoch` move a subscriber's cursor, so the publisher signs the
    /// answer as a whole, bound to the question; and a fetch names its publisher, so a captured one
    /// sent to another service is refused.
    @Test func aFetchAnswerIsSignedForItsQuestionAndAFetchForAnotherPublisherIsRefused() throws {
        let stack = try TestStack().start(["registration", "tagging"])
        let client = try stack.client()
        _ = try client.register()
        let question = EventFetch(publisher: "registration", after: 0, questionID: "q1")
        let answer = try fetch(client, question)
        var verifier = EventVerifier(secrets: stack.secrets)
        #expect(FetchSeal.verify(answer, for: question, publisher: "registration", by: &verifier))

        var skipped = answer
        skipped.through = 1_000_000_000_000
        var restarted = answer
        restarted.epoch = "0123456789abcdef"
        var emptied = answer
        emptied.events = []
        var another = question
        another.questionID = "q2"
        #expect(!FetchSeal.verify(skipped, for: question, publisher: "registration", by: &verifier), "a forged through")
        #expect(!FetchSeal.verify(restarted, for: question, publisher: "registration", by: &verifier), "a forged epoch")
        #expect(!FetchSeal.verify(emptied, for: question, publisher: "registration", by: &verifier), "events left out")
        #expect(!FetchSeal.verify(answer, for: another, publisher: "registration", by: &verifier), "an answer to another question")
        #expect(!FetchSeal.verify(answer, for: question, publisher: "tagging", by: &verifier), "another publisher's")

        let misdirected = try client.request("tagging", [Data(EventFetch.command.utf8), WireCodec.encode(question)])
        #expect(try JSONDecoder().decode(JSONValue.self, from: misdirected[0]).code == 6017, "tagging refuses registration's fetch")
    }

    /// A worker that registers for `service` and never answers, counting the requests it is sent.
    final class MuteWorker {
        let socket: Socket
        init(_ stack: TestStack, service: String) throws {
            socket = try Socket.dealer(stack.context, connect: stack.endpoint)
            try stack.admit(socket, as: service, credit: 8)
        }
        func requestsReceived(waiting milliseconds: Int) throws -> Int {
            var count = 0
            var poller = Poller([socket])
            let deadline = Clock.milliseconds() + Int64(milliseconds)
            while Clock.milliseconds() < deadline {
                guard try poller.poll(timeout: 50).contains(socket) else { continue }
                while let message = try socket.receive(wait: false) {
                    if case .request? = try? WorkerMessage(frames: message.frames[...]) { count += 1 }
                }
            }
            return count
        }
    }

    @Test func theSweepAsksOnlyThePublishersOfFollowedTopics() throws {
        let stack = try TestStack().start()
        // Two services that publish nothing the recorder follows (device.registered): before this
        // rule, every sweep asked them and waited on them, and two shards of one service waited on
        // each other.
        let tagging = try MuteWorker(stack, service: "tagging/1")
        let analytics = try MuteWorker(stack, service: "analytics")
        try stack.waitForService("tagging/1")
        try stack.waitForService("analytics")
        let client = try stack.client()
        for _ in 0..<3 { _ = try client.register() }
        let (recorder, stop) = try ReliableEventsTests().startRecorder(stack, path: "\(stack.dataDirectory)/sweep.sqlite")
        defer { stop() }
        let deadline = Date().addingTimeInterval(20)
        while try recorder.applied().count < 3 && Date() < deadline { usleep(50_000) }
        #expect(try recorder.applied() == [1, 2, 3], "the sweep caught up from registration")
        #expect(try tagging.requestsReceived(waiting: 300) == 0)
        #expect(try analytics.requestsReceived(waiting: 300) == 0)
    }

    /// A worker that registers for `service`, keeps its heartbeat going and answers nothing: a
    /// publisher stuck (or buried under requests) while its subscribers ask it for events.
    final class StuckWorker: @unchecked Sendable {
        private let socket: Socket
        private let stopped = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var running = true

        init(_ stack: TestStack, service: String) throws {
            socket = try Socket.dealer(stack.context, connect: stack.endpoint)
            try stack.admit(socket, as: service, credit: 8)
            Thread { [self] in
                while lock.withLock({ running }) {
                    try? socket.send(WorkerMessage.heartbeat.frames)
                    var poller = Poller([socket])
                    if (try? poller.poll(timeout: 100))?.contains(socket) == true { while (try? socket.receive(wait: false)) != nil {} }
                }
                socket.close()
                stopped.signal()
            }.start()
        }

        func stop() {
            lock.withLock { running = false }
            stopped.wait()
        }
    }

    @Test func aPublisherThatNeverAnswersDoesNotStallItsSubscriber() throws {
        let stack = try TestStack().start([])
        let registration = try StuckWorker(stack, service: "registration")
        defer { registration.stop() }
        try stack.waitForService("registration")
        let (_, stop) = try ReliableEventsTests().startRecorder(stack, path: "\(stack.dataDirectory)/stuck.sqlite")
        defer { stop() }
        // The recorder's sweep asks the stuck registration for events at once and again every 2 s,
        // each question given up on after 2 s. Waiting on it, the recorder went silent for longer than
        // the gateway's 600-ms liveness (heartbeats every 200 ms here), and answered nothing meanwhile.
        let client = try MajordomoClient(endpoint: stack.endpoint, context: stack.context, timeoutMilliseconds: 1500)
        client.signer = stack.signer()
        var slowest = 0.0
        var answered = 0
        let end = Date().addingTimeInterval(5)
        while Date() < end {
            let started = Date()
            if (try? client.request("recorder", [Data("ping".utf8), Data("{}".utf8)]))?.count == 1 { answered += 1 }
            slowest = max(slowest, Date().timeIntervalSince(started))
            usleep(50_000)
        }
        #expect(answered > 20, "answered \(answered)")
        #expect(slowest < 1.0, "the slowest request took \(slowest) s")
        #expect(try client.serviceStatus("recorder") == "200")
    }
}

