import Credentials
import Foundation
import Schema

/// The outbox as other services read it: the proof on each event it publishes, and the answer to
/// `events.fetch` from a subscriber catching up, signed as a whole (`FetchSeal`).
extension Outbox {
    /// The proof on `event` (`EventSeal`), signed with this publisher's credential, made ready once.
    public func seal(_ event: (topic: String, event: Data), key: HMACKey) -> Data {
        EventSeal.proof(topic: event.topic, event: event.event, publisher: publisher, key: key)
    }

    /// What `fetch` asks of this outbox, each event with its proof and the whole signed with
    /// this publisher's credential `key`; 6017 for a fetch that names another publisher (a captured
    /// one sent elsewhere).
    public func answer(_ fetch: EventFetch, key: HMACKey) throws -> FetchedEvents {
        guard fetch.publisher == publisher else {
            throw CommandError.invalid("this events.fetch names another publisher than \(publisher)")
        }
        let limit = min(max(fetch.limit ?? EventFetch.maxLimit, 1), EventFetch.maxLimit)
        let found = try events(after: fetch.after, limit: limit, topics: fetch.topics.map(Set.init))
        let events = found.events.map {
            FetchedEvent(topic: $0.topic, event: String(decoding: $0.event, as: UTF8.self),
                         proof: String(decoding: seal($0, key: key), as: UTF8.self))
        }
        let answer = FetchedEvents(events: events, through: found.through, epoch: epoch)
        return FetchSeal.sealed(answer, for: fetch, publisher: publisher, key: key)
    }
}
