import Bus
import Foundation
import Runtime
import ZeroMQ

/// The gateway's ZAP handler (ZeroMQ RFC 27), in use with `--curve`: libzmq asks it about every
/// CURVE handshake on the gateway's sockets. On the bus endpoints (domain `bus`) it admits only the
/// bus key pair every PushBus service derives from server.key (`BusCurve`); on the request endpoint
/// anyone holding the server's public key may connect, as before. Polled by the broker's loop,
/// which owns its socket.
final class ZAPHandler {
    let socket: Socket
    private let busKey: Data
    private let logger: Logger

    /// Binds the handler's endpoint in `context`; do it before any CURVE socket accepts a peer.
    init(context: Context, busPublicKey: String, logger: Logger) throws {
        guard let key = CurveKeys.bytes(of: busPublicKey) else { throw ZMQError(errno: EINVAL, operation: "bus public key") }
        busKey = key
        socket = try Socket.rep(context, bind: "inproc://zeromq.zap.01")
        self.logger = logger
    }

    /// Answers every queued request.
    func answerAll() throws {
        while let request = try socket.receive(wait: false) {
            try socket.send(Message(reply(to: request.frames)))
        }
    }

    /// `[version, request id, domain, address, identity, mechanism, credentials…]` in,
    /// `[version, request id, status code, status text, user id, metadata]` out.
    private func reply(to frames: [Data]) -> [Data] {
        guard frames.count >= 6, frames[0] == Data("1.0".utf8) else {
            return [Data("1.0".utf8), frames.count > 1 ? frames[1] : Data(), Data("500".utf8), Data("malformed ZAP request".utf8), Data(), Data()]
        }
        let domain = String(decoding: frames[2], as: UTF8.self)
        let admitted = domain != BusCurve.domain || (frames[5] == Data("CURVE".utf8) && frames.count == 7 && frames[6] == busKey)
        if !admitted {
            logger.warning("bus connection refused: not a PushBus service's key", ["address": String(decoding: frames[3], as: UTF8.self)])
        }
        return [Data("1.0".utf8), frames[1], Data((admitted ? "200" : "400").utf8), Data((admitted ? "OK" : "not a PushBus service").utf8),
                Data(), Data()]
    }

    func close() { socket.close() }
}
