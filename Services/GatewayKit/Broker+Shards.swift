import Foundation
import Majordomo
import Runtime
import Schema

/// App-wide queries over a sharded service: one part per shard, merged when all have answered; an
/// audience page asks its shards round by round until the page is whole.
extension Broker {
    /// Sends an app-wide query to every shard that has a part of it; the replies are merged once all are in.
    func scatter(_ sender: Data, _ request: ClientMessage, command: Command, service: String, parts: [Data?], proof: VerifiedProof?, seq: Int?) {
        let id = startGather(sender, request, command: command, service: service, proof: proof, seq: seq, paging: nil)
        ask(id, parts)
    }

    /// Starts a page of a sharded audience.
    func page(_ sender: Data, _ request: ClientMessage, service: String, paging: AudiencePaging, proof: VerifiedProof?, seq: Int?) {
        let id = startGather(sender, request, command: .audienceResolve, service: service, proof: proof, seq: seq, paging: paging)
        advance(id, paging.start())
    }

    private func startGather(_ sender: Data, _ request: ClientMessage, command: Command, service: String, proof: VerifiedProof?, seq: Int?,
                             paging: AudiencePaging?) -> UInt64 {
        let id = nextID
        nextID += 1
        gathers[id] = Gather(client: sender, request: request, command: command, service: service, seq: seq, proof: proof,
                             arrivedAt: Clock.milliseconds(), paging: paging)
        return id
    }

    /// Sends one round of gather `id`: a part to each shard that has one.
    private func ask(_ id: UInt64, _ parts: [Data?]) {
        guard var gather = gathers[id] else { return }
        gather.replies = parts.map { _ in nil }
        gather.waiting = parts.compactMap { $0 }.count
        gathers[id] = gather
        for (shard, part) in parts.enumerated() {
            guard let part else { continue }
            let target = ShardHash.serviceName(gather.service, shard: shard, of: parts.count)
            // A shard gets the client's proof with its first part only: the service records a proof
            // once, and refuses it the second time (a page may ask one shard twice).
            let proof = gather.proofSentTo.insert(shard).inserted ? gather.proof : nil
            gathers[id] = gather
            let accepted = accept(gather.client, gather.request, target: target, body: [gather.request.body[0], part], proof: proof,
                                  seq: { gather.seq }, part: .init(gather: id, index: shard))
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
        gathers[part.gather] = gather
        guard gather.waiting == 0 else { return }
        guard var paging = gather.paging else {
            finish(part.gather, ShardGather.merge(gather.command, replies: gather.replies, seq: gather.seq))
            return
        }
        switch ShardGather.decode(gather.replies, seq: gather.seq) {
        case .failure(let failure):
            finish(part.gather, failure.reply)
        case .success(let values):
            let step = paging.take(values)
            gathers[part.gather]?.paging = paging
            advance(part.gather, step)
        }
    }

    private func advance(_ id: UInt64, _ step: AudiencePaging.Step) {
        switch step {
        case .ask(let parts): ask(id, parts)
        case .answer(let page): finish(id, ShardGather.reply(page, seq: gathers[id]?.seq))
        case .fail(let error): finish(id, WireCodec.errorReply(error, seq: gathers[id]?.seq))
        }
    }

    /// Answers the client of gather `id` with `reply` and forgets the gather.
    private func finish(_ id: UInt64, _ reply: Data) {
        guard let gather = gathers.removeValue(forKey: id) else { return }
        let body = [reply]
        send(to: gather.client, ClientMessage(service: gather.request.service, body: body))
        metrics.answered(gather.command.service.name, hasWorkers: { true }, reply: reply, arrivedAt: gather.arrivedAt, now: Clock.milliseconds())
        recorder?.record(arrivedAt: gather.arrivedAt, service: gather.request.service, body: gather.request.body, reply: body)
    }
}
