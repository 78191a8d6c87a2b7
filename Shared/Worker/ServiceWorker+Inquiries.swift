import Credentials
import Foundation
import Majordomo
import Schema
import ZeroMQ

extension ServiceWorker {
    /// Parks the requests of `batch` that must ask other services first (the handler's
    /// `inquiries`), answers at once those whose inquiries refused them, and returns the rest.
    func divert(_ batch: [(client: Data, body: [Data])], to desk: InquiryDesk, _ broker: Socket) throws -> [(client: Data, body: [Data])] {
        let inquiring = handler.inquiring
        var rest: [(client: Data, body: [Data])] = []
        rest.reserveCapacity(batch.count)
        for item in batch {
            guard item.body.count == 2 || item.body.count == 4, let name = String(validating: item.body[0], as: UTF8.self),
                  let command = Command(rawValue: name), inquiring.contains(command) else {
                rest.append(item)
                continue
            }
            let principal = item.body.count == 4 ? Credentials.Proof(frame: item.body[2])?.principal : nil
            let request = Request(command: name, payload: item.body[1], principal: principal)
            do {
                let questions = try handler.inquiries(command, request)
                if questions.isEmpty { rest.append(item) } else { desk.park(client: item.client, body: item.body, inquiries: questions) }
            } catch {
                let refusal = error as? CommandError ?? CommandError(.internalError, "internal error")
                let reply = WireCodec.errorReply(refusal, seq: request.seq)
                try broker.send(reusing: &outgoing) { WorkerMessage.writeReply(client: item.client, frame: reply, into: &$0) }
            }
        }
        return rest
    }
}
