#if !os(Linux)
import Foundation

/// The device channel through `URLSessionWebSocketTask` (Apple platforms; Foundation on Linux has no
/// WebSocket client). Not compiled by CI, which runs on Linux: written against Apple's documented API.
final class URLSessionChannelConnection: ChannelConnection {
    private let task: URLSessionWebSocketTask

    init(url: URL) throws {
        task = URLSession(configuration: .ephemeral).webSocketTask(with: url)
        task.resume()
    }

    func receive() throws -> String? {
        let done = DispatchSemaphore(value: 0)
        var result: Result<URLSessionWebSocketTask.Message, Error>?
        task.receive { received in
            result = received
            done.signal()
        }
        guard done.wait(timeout: .now() + 1) == .success else { return nil }
        switch result {
        case .success(.string(let text))?: return text
        case .success?: throw ChannelClosed(code: 1003, reason: "a binary frame")
        case .failure?, nil: throw ChannelClosed(code: UInt16(task.closeCode.rawValue == 0 ? 1006 : task.closeCode.rawValue),
                                                 reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
    }

    func send(_ text: String) throws {
        let done = DispatchSemaphore(value: 0)
        var failure: Error?
        task.send(.string(text)) { error in
            failure = error
            done.signal()
        }
        done.wait()
        if let failure { throw ChannelClosed(code: 1006, reason: "\(failure)") }
    }

    func close(_ code: UInt16) {
        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure, reason: nil)
    }

    func interrupt() { task.cancel(with: .normalClosure, reason: nil) }
}
#endif
