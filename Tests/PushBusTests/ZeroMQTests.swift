import Foundation
import Testing
import ZeroMQ

@Suite("ZeroMQ layer")
struct ZeroMQTests {
    @Test func multipartMessagesKeepEveryFrameIncludingEmptyOnes() throws {
        let context = try Context()
        let server = try Socket(context, .pair)
        try server.bind("inproc://frames")
        let client = try Socket(context, .pair)
        try client.connect("inproc://frames")
        let message = Message([Data(), Data("a".utf8), Data(repeating: 7, count: 100_000), Data()])
        try client.send(message)
        #expect(try server.receive() == message)
    }

    @Test func nonBlockingReceiveReturnsNilWhenEmpty() throws {
        let context = try Context()
        let socket = try Socket(context, .pull)
        try socket.bind("inproc://empty")
        #expect(try socket.receive(wait: false) == nil)
    }

    @Test func pollerReportsReadySockets() throws {
        let context = try Context()
        let a = try Socket(context, .pull)
        try a.bind("inproc://a")
        let b = try Socket(context, .pull)
        try b.bind("inproc://b")
        let push = try Socket(context, .push)
        try push.connect("inproc://b")
        try push.send(strings: ["hi"])
        var poller = Poller([a, b])
        #expect(try poller.poll(timeout: 1000) == [false, true])
        _ = try b.receive()
        #expect(try poller.poll(timeout: 0) == [false, false])
    }

    @Test func aRouterReadsThePeerAddressOnlyOfTheMessagesThatWantIt() throws {
        let context = try Context()
        let router = try Socket(context, .router)
        try router.bind("tcp://127.0.0.1:*")
        let dealer = try Socket(context, .dealer)
        try dealer.connect(router.lastEndpoint)
        try dealer.send(strings: ["", "ask"])
        try dealer.send(strings: ["", "skip"])
        let wantsAsk = { (frames: [Data]) in frames.last == Data("ask".utf8) }
        let asked = try #require(try router.receive(peerAddressIf: wantsAsk))
        #expect(asked.message.frames.dropFirst() == [Data(), Data("ask".utf8)])
        #expect(asked.peerAddress == "127.0.0.1")
        #expect(try router.receive(peerAddressIf: wantsAsk)?.peerAddress == nil)

        let local = try Socket(context, .router)
        try local.bind("inproc://peer")
        let neighbour = try Socket(context, .dealer)
        try neighbour.connect("inproc://peer")
        try neighbour.send(strings: ["", "ask"])
        let inproc = try #require(try local.receive(peerAddressIf: wantsAsk))
        #expect(inproc.peerAddress == nil || inproc.peerAddress == "", "no IP over inproc")
    }

    @Test func routerAndDealerOverTCP() throws {
        let context = try Context()
        let router = try Socket(context, .router)
        try router.bind("tcp://127.0.0.1:*")
        let dealer = try Socket(context, .dealer)
        try dealer.setIdentity(Data("me".utf8))
        try dealer.connect(router.lastEndpoint)
        try dealer.send(strings: ["", "ping"])
        let received = try #require(try router.receive())
        #expect(received.frames == [Data("me".utf8), Data(), Data("ping".utf8)])
    }

    @Test func errorsAreSwiftErrors() throws {
        let context = try Context()
        let socket = try Socket(context, .rep)
        #expect(throws: ZMQError.self) { try socket.bind("nonsense://endpoint") }
        let first = try Socket(context, .rep)
        try first.bind("inproc://taken")
        #expect(throws: ZMQError.self) { try socket.bind("inproc://taken") }
    }
}
