import Foundation
import Majordomo
import Runtime
import Schema

/// App-wide queries over a sharded service: one part per shard, merged when all have answered.
extension Broker {
    /// Sends an app-wide query to every shard that has a part of it; the replies are merged once all are in.
    func scatter(_ sender: Data, _ request: ClientMessage, command: Command, service: String, parts: [Data?], proof: Data?, seq: Int?) {
        let id = nextID
        nextID += 1
        gathers[id] = Gather(client: sender, request: request, command: command, seq: seq, replies: parts.map { _ in nil },
                             waiting: parts.compactMap { $0 }.count, arrivedAt: Clock.milliseconds())
        for (shard, part) in parts.enumerated() {
            guard let part else { continue }
            let target = ShardHash.serviceName(service, shard: shard, of: parts.count)
            let accepted = accept(sender, request, target: target, body: [request.body[0], part], proof: proof, seq: { seq },
                                  part: .init(gather: id, index: shard))
            if accepted == nil {
                // The refusal went to the client already; drop the rest of the query.
                gathers[id] = nil
                return
            }
        }
    }

    func collect(_ part: PendingRequest.Part, _ reply: Data) {
        guard var gather = gathers[part.gather] else { return }
        gather.replies[part.index] = reply
        gather.waiting -= 1
        guard gather.waiting == 0 else {
            gathers[part.gather] = gather
            return
        }
        gathers[part.gather] = nil
        let merged = [ShardGather.merge(gather.command, request: gather.request.body[1], replies: gather.replies, seq: gather.seq)]
        send(to: gather.client, ClientMessage(service: gather.request.service, body: merged).frames)
        metrics.answered(gather.command.service.name, reply: merged.first, arrivedAt: gather.arrivedAt, now: Clock.milliseconds())
        recorder?.record(arrivedAt: gather.arrivedAt, service: gather.request.service, body: gather.request.body, reply: merged)
    }
}
