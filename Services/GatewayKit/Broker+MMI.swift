import Foundation
import Majordomo
import Runtime
import Schema

/// The broker's own services (RFC 8): `mmi.service`, `mmi.topology` for `pushctl status`, and
/// `mmi.challenge`, which a worker signs into its READY (`WorkerChallenges`).
extension Broker {
    func answerMMI(_ sender: Data, _ request: ClientMessage) {
        let answer: String
        if request.service == "mmi.service" {
            let name = request.body.first.flatMap { String(data: $0, encoding: .utf8) } ?? ""
            answer = hasWorkers(name) ? "200" : "404"
        } else if request.service == MDP.challengeService {
            answer = authenticator.challenges.issue(to: Array(sender), now: Clock.milliseconds())
        } else if request.service == "mmi.topology" {
            send(to: sender, ClientMessage(service: request.service, body: [topology()]))
            return
        } else {
            answer = "501"
        }
        send(to: sender, ClientMessage(service: request.service, strings: [answer]))
    }

    /// A sharded service has workers when every one of its shards has.
    func hasWorkers(_ name: String) -> Bool {
        if name == Broker.deviceService { return workers.isEmpty == false }
        let shards = options.shards.count(name)
        return (0..<shards).allSatisfy { shard in
            services[ShardHash.serviceName(name, shard: shard, of: shards)].map { !$0.workers.isEmpty } ?? false
        }
    }
}
