import Foundation

/// A minimal HTTP/1.0 GET over a plain socket, so tests read `/metrics` as Prometheus would.
enum HTTPGet {
    /// The status code and body of `GET path` on 127.0.0.1:`port`. With `timeout`, connecting,
    /// sending and each read give up after that many seconds (and throw) instead of waiting forever.
    /// `method`, `headers` and `body` make it any request (HTTP/1.0, so the server closes after it).
    static func fetch(port: Int, path: String, timeout: Double? = nil, method: String = "GET", headers: [String: String] = [:],
                      body: Data = Data()) throws -> (status: Int, body: String) {
        let answer = try exchange(port: port, path: path, timeout: timeout, method: method, headers: headers, body: body)
        return (answer.status, answer.body)
    }

    /// As `fetch`, with the answer's headers too (names lower-cased, the last of a name kept).
    static func exchange(port: Int, path: String, timeout: Double? = nil, method: String = "GET", headers: [String: String] = [:],
                         body: Data = Data()) throws -> (status: Int, headers: [String: String], body: String) {
        let fd = try LoopbackSocket.connect(port: port, timeout: timeout)
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        let request = Data((head + "\r\n").utf8) + body
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
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
        var fields: [String: String] = [:]
        for line in text[..<split.lowerBound].split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, fields, String(text[split.upperBound...]))
    }
}
