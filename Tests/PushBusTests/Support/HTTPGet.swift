import Foundation

/// A minimal HTTP/1.0 GET over a plain socket, so tests read `/metrics` as Prometheus would.
enum HTTPGet {
    /// The status code and body of `GET path` on 127.0.0.1:`port`. With `timeout`, connecting,
    /// sending and each read give up after that many seconds (and throw) instead of waiting forever.
    static func fetch(port: Int, path: String, timeout: Double? = nil) throws -> (status: Int, body: String) {
        let fd = try LoopbackSocket.connect(port: port, timeout: timeout)
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let statusLine = text.split(separator: "\r\n").first, let status = Int(statusLine.split(separator: " ")[1]),
              let split = text.range(of: "\r\n\r\n") else { throw StackError("not an HTTP response: \(text.prefix(80))") }
        return (status, String(text[split.upperBound...]))
    }
}
