import Foundation
import Glibc
import HTTP
import Testing

/// The HTTP server module on its own, over real sockets: what it does with a client that reads.
@Suite("HTTP server")
struct HTTPServerTests {
    /// A client that reads a large answer a few bytes at a time keeps resetting libmicrohttpd's idle
    /// timer with every byte it takes, so only the response deadline ends it: cut once the answer has
    /// been waiting to be read that long, not held for as long as the client likes.
    @Test func aClientThatReadsItsAnswerTooSlowlyIsCutAtTheResponseDeadline() throws {
        // 32 MB: more than the kernel's socket buffers on both ends hold, so the answer is still
        // being written when the deadline comes.
        let body = Data(count: 32 << 20)
        let server = try HTTPServer(name: "test-http", host: "127.0.0.1", port: 0,
                                    limits: HTTPLimits(idleTimeoutSeconds: 15, requestDeadlineSeconds: 20, responseDeadlineSeconds: 2)) { _, responder in
            responder.respond(HTTPResponse(status: 200, body: body))
        }
        defer { server.stop() }
        let fd = try LoopbackSocket.connect(port: server.boundPort, timeout: 1, receiveBuffer: 4096)
        defer { close(fd) }
        let request = Array("GET /large HTTP/1.1\r\nHost: test\r\n\r\n".utf8)
        #expect(send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
        let started = Date()
        var read = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        // 256 bytes every quarter of a second, a kilobyte a second, for 4 s: past the deadline.
        while Date().timeIntervalSince(started) < 4 {
            let count = recv(fd, &buffer, 256, Int32(MSG_DONTWAIT))
            if count > 0 { read += count }
            usleep(250_000)
        }
        // Then as fast as it can: a connection that was cut gives what its own buffer held and ends;
        // one still served would give the whole 32 MB and stay open.
        var closed = false
        while Date().timeIntervalSince(started) < 14 {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                read += count
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                closed = true
                break
            }
        }
        #expect(closed, "the slow reader was still served: \(read) bytes read, \(server.counters.deadlineCuts) cut")
        #expect(read < 1 << 20, "it read \(read) bytes: the server's send buffer was not dropped")
        #expect(server.counters.deadlineCuts >= 1)
    }

    /// The same deadline leaves a client that reads at once alone, however large the answer.
    @Test func aClientThatReadsAtOnceGetsAWholeLargeAnswer() throws {
        let body = Data(repeating: 7, count: 8 << 20)
        let server = try HTTPServer(name: "test-http", host: "127.0.0.1", port: 0,
                                    limits: HTTPLimits(responseDeadlineSeconds: 2)) { _, responder in
            responder.respond(HTTPResponse(status: 200, body: body))
        }
        defer { server.stop() }
        let fd = try LoopbackSocket.connect(port: server.boundPort, timeout: 5)
        defer { close(fd) }
        let request = Array("GET /large HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".utf8)
        #expect(send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            total += count
        }
        #expect(total > body.count, "\(total) bytes: the head and the whole body")
    }
}
