import Client
import Credentials
import Foundation
import Schema
import ZeroMQ

/// Asks a publisher for events a subscriber missed (`events.fetch` to the publisher's MDP service).
/// Owned by the worker loop's thread; a publisher that does not answer in time gives nil.
final class EventFetcher {
    private let client: MajordomoClient

    /// `secrets` sign the fetches as the admin (`events.fetch` is internal).
    init(endpoint: String, context: Context, secrets: Secrets?, timeoutMilliseconds: Int = 2000, serverKey: String? = nil) throws {
        client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: timeoutMilliseconds,
                                     serverKey: serverKey)
        client.signer = Signer(secrets: secrets)
    }

    /// The services the gateway knows (`mmi.topology`), each a possible publisher; empty when it cannot tell.
    func publishers() -> [String] {
        guard let body = try? client.request("mmi.topology", []), let first = body.first,
              case .array(let entries)? = (try? JSONTreeDecoder().decode(JSONValue.self, from: first))?["services"] else { return [] }
        return entries.compactMap { $0["service"]?.string }
    }

    /// A page of the publisher's events after `sequence`, oldest first: those of `topics` among the
    /// next `limit`, and the sequence of the last one it looked at (nil when it had none). Nil when
    /// the publisher could not be asked.
    func fetch(from publisher: String, after sequence: Int64, topics: [String],
               limit: Int = EventFetch.maxLimit) -> (events: [BusEvent], through: Int64?)? {
        let request = WireCodec.encode(EventFetch(after: sequence, limit: limit, topics: topics))
        guard let body = try? client.request(publisher, [Data(EventFetch.command.utf8), request]), body.count == 1,
              let reply = try? JSONTreeDecoder().decode(Reply<FetchedEvents>.self, from: body[0]),
              let fetched = reply.body else { return nil }
        return (fetched.events.map { BusEvent(topic: $0.topic, data: WireCodec.encode($0.event)) }, fetched.through)
    }
}
