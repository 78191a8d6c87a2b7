#if os(Linux)
import Foundation

/// The head of an HTTP/1.1 answer as the SDK's own client reads it: the status and the headers
/// (names lower-cased). What the edge's answers and the channel's upgrade share.
struct HTTPHead {
    let status: Int
    let statusLine: String
    let headers: [String: String]

    /// Reads from `socket` into `input` until a whole head is there, takes it out of `input` (what
    /// follows, the body or the first frames, stays), and parses it. Throws when `deadline` passes,
    /// the connection ends, or the status line is not one.
    static func read(from socket: TLSSocket, into input: inout [UInt8], host: String, deadline: Date) throws -> HTTPHead {
        let end: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if input.count >= 4 { headEnd = (0...(input.count - 4)).first { input[$0..<($0 + 4)].elementsEqual(end) } }
            if headEnd == nil {
                guard Date() < deadline else { throw TransportError("no answer from \(host) in time") }
                if let bytes = try socket.read() { input += bytes }
            }
        }
        let lines = String(decoding: input[0..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        input.removeFirst(headEnd! + 4)
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TransportError("a malformed answer from \(host): \(lines[0].prefix(80))") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { headers[pair[0].lowercased()] = pair[1] }
        }
        return HTTPHead(status: status, statusLine: lines[0], headers: headers)
    }
}
#endif
