import Bus
import Client
import Credentials
import Foundation
import JSON
import Runtime
import Schema
import ZeroMQ

/// Asks, without waiting, which publishers the gateway knows (`mmi.topology`) or what a publisher's
/// outbox holds for a subscriber (`events.fetch`): one question at a time, its answer taken when
/// `socket` is readable, or given up on after `timeoutMilliseconds`. The worker loop never blocks
/// on another service, however busy or stuck it is. Owned by the worker loop's thread.
public final class EventFetcher {
    public enum Question: Equatable {
        case publishers
        case events(from: String, EventFetch)
    }

    public enum Answer {
        /// The services the gateway knows, each a possible publisher.
        case publishers([String])
        /// Events of the asked topics after the asked sequence, oldest first, each signed by the
        /// publisher asked; `through`, the sequence of the last event the publisher looked at (nil
        /// when it had none); and the epoch of its history.
        case events(from: String, events: [BusEvent], through: Int64?, epoch: String?)
        /// No usable answer in time.
        case unanswered(Question)
    }

    private let client: MajordomoClient
    private var verifier: EventVerifier
    private let timeoutMilliseconds: Int64
    private var asked: (question: Question, deadline: Int64)?

    /// The fetches are signed as `service` (`events.fetch` is internal), with its credential from `secrets`.
    public init(endpoint: String, context: Context, service: String, secrets: Secrets, timeoutMilliseconds: Int = 2000,
         serverKey: String? = nil) throws {
        client = try MajordomoClient(endpoint: endpoint, context: context, timeoutMilliseconds: timeoutMilliseconds,
                                     serverKey: serverKey)
        client.signer = Signer(service: service, secrets: secrets)
        verifier = EventVerifier(secrets: secrets)
        self.timeoutMilliseconds = Int64(timeoutMilliseconds)
    }

    /// Readable when an answer has come.
    public var socket: Socket { client.socket }
    public var isWaiting: Bool { asked != nil }
    /// Monotonic milliseconds at which the question asked is given up on.
    public var deadline: Int64? { asked?.deadline }

    public func askPublishers() { ask(.publishers, "mmi.topology", []) }

    public func askEvents(from publisher: String, after sequence: Int64, topics: [String], limit: Int = EventFetch.maxLimit) {
        let fetch = EventFetch(publisher: publisher, after: sequence, limit: limit, topics: topics, questionID: RandomKey.hex(bytes: 8))
        ask(.events(from: publisher, fetch), publisher, [Data(EventFetch.command.utf8), WireCodec.encode(fetch)])
    }

    /// The answer to the question asked, once it has come or its time is up; nil while waiting.
    public func answer() -> Answer? {
        guard let asked else { return nil }
        let body: [Data]?
        do { body = try client.receiveReply() } catch { return giveUp() }
        if let body {
            self.asked = nil
            return read(body, for: asked.question)
        }
        return Clock.milliseconds() >= asked.deadline ? giveUp() : nil
    }

    /// Drops the question asked (its late answer can never be read) and says it went unanswered.
    private func giveUp() -> Answer? {
        guard let asked else { return nil }
        try? client.abandon()
        self.asked = nil
        return .unanswered(asked.question)
    }

    private func ask(_ question: Question, _ service: String, _ body: [Data]) {
        do {
            try client.send(service, body)
            asked = (question, Clock.milliseconds() + timeoutMilliseconds)
        } catch {
            asked = (question, 0)   // answered `.unanswered` at the next look
        }
    }

    private func read(_ body: [Data], for question: Question) -> Answer {
        switch question {
        case .publishers:
            guard let first = body.first,
                  case .array(let entries)? = (try? JSONTreeDecoder().decode(JSONValue.self, from: first))?["services"] else {
                return .unanswered(question)
            }
            return .publishers(entries.compactMap { $0["service"]?.string })
        case .events(let publisher, let fetch):
            // The answer as a whole must be the asked publisher's answer to this very question.
            guard body.count == 1, let reply = try? JSONTreeDecoder().decode(Reply<FetchedEvents>.self, from: body[0]),
                  let fetched = reply.body, FetchSeal.verify(fetched, for: fetch, publisher: publisher, by: &verifier) else {
                return .unanswered(question)
            }
            var events: [BusEvent] = []
            for item in fetched.events {
                // Every event must be the asked publisher's own, signed by it; one that is not makes
                // the whole answer worthless.
                guard let event = BusEvent.verified(topic: item.topic, data: Data(item.event.utf8), proof: Data(item.proof.utf8),
                                                    by: &verifier), event.publisher == publisher else { return .unanswered(question) }
                events.append(event)
            }
            return .events(from: publisher, events: events, through: fetched.through, epoch: fetched.epoch)
        }
    }
}
