import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device edge through `URLSession` (Apple platforms; on Linux only for servers the system
/// trusts). Blocks its caller (the SDK's queue) until the answer.
public final class URLSessionTransport: DeviceTransport {
    private let server: URL
    private let session: URLSession

    public init(server: URL, timeout: Double = 15) {
        self.server = server
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    public func post(command: String, payload: Data, proof: String?) throws -> (status: Int, body: Data) {
        var request = URLRequest(url: server.appendingPathComponent("v1/device/\(command)"))
        request.httpMethod = "POST"
        request.httpBody = payload
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let proof { request.setValue(proof, forHTTPHeaderField: "X-PushBus-Proof") }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<(Int, Data), TransportError> = .failure(TransportError("no answer"))
        session.dataTask(with: request) { data, response, error in
            if let response = response as? HTTPURLResponse {
                result = .success((response.statusCode, data ?? Data()))
            } else {
                result = .failure(TransportError(error.map { "\($0)" } ?? "no answer"))
            }
            done.signal()
        }.resume()
        done.wait()
        return try result.get()
    }

    public func close() {}
}
