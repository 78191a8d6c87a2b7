import Foundation
import Testing
import ZeroMQ

@Suite("ZeroMQ layer")
struct ZeroMQTests {
    @Test func multipartMessagesKeepEveryFrameIncludingEmptyOnes() throws {
        let context = try Context()
        let server = try Socket.pair(context, bind: "inproc://frames")
        let client = try Socket.pair(context, connect: "inproc://frames")
        let message = Message([Data(), Data("a".utf8), Data(repeating: 7, count: 100_000), Data()])
        try client.send(message)
        #expect(try server.receive() == message)
    }

    @Test func nonBlockingReceiveReturnsNilWhenEmpty() throws {
        let context = try Context()
        let socket = try Socket.pull(context, bind: "inproc://empty")
        #expect(try socket.receive(wait: false) == nil)
    }

    @Test func pollerReportsReadySockets() throws {
        let context = try Context()
        let a = try Socket.pull(context, bind: "inproc://a")
        let b = try Socket.pull(context, bind: "inproc://b")
        let push = try Socket.push(context, connect: "inproc://b")
        try push.send(strings: ["hi"])
        var poller = Poller([a, b])
        let ready = try poller.poll(timeout: 1000)
        #expect(!ready.contains(a) && ready.contains(b))
        #expect(ready.map(ObjectIdentifier.init) == [ObjectIdentifier(b)], "the ready sockets, and only those")
        _ = try b.receive()
        #expect(try poller.poll(timeout: 0).isEmpty)
        #expect(try !poller.poll(timeout: 0).contains(push), "a socket the poller does not watch is never ready")
    }

    @Test func aRouterReadsThePeerAddressOnlyOfTheMessagesThatWantIt() throws {
        let context = try Context()
        let router = try Socket.router(context, bind: "tcp://127.0.0.1:*")
        let dealer = try Socket.dealer(context, connect: router.lastEndpoint)
        try dealer.send(strings: ["", "ask"])
        try dealer.send(strings: ["", "skip"])
        let wantsAsk = { (frames: [Data]) in frames.last == Data("ask".utf8) }
        let asked = try #require(try router.receive(peerAddressIf: wantsAsk))
        #expect(asked.message.frames.dropFirst() == [Data(), Data("ask".utf8)])
        #expect(asked.peerAddress == "127.0.0.1")
        #expect(try router.receive(peerAddressIf: wantsAsk)?.peerAddress == nil)

        let local = try Socket.router(context, bind: "inproc://peer")
        let neighbour = try Socket.dealer(context, connect: "inproc://peer")
        try neighbour.send(strings: ["", "ask"])
        let inproc = try #require(try local.receive(peerAddressIf: wantsAsk))
        #expect(inproc.peerAddress == nil || inproc.peerAddress == "", "no IP over inproc")
    }

    @Test func routerAndDealerOverTCP() throws {
        let context = try Context()
        let router = try Socket.router(context, bind: "tcp://127.0.0.1:*")
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
        let first = try Socket.rep(context, bind: "inproc://taken")
        #expect(throws: ZMQError.self) { try socket.bind("inproc://taken") }
    }
}
