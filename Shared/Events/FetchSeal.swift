import Credentials
import Foundation
import Schema

/// The publisher's signature over an `events.fetch` answer as a whole. Each event carries its own
/// proof, but `through` (how far the asker's cursor moves) and `epoch` (whether its history starts
/// over) are the answer's: a forged `through` would make a subscriber skip every event below it for
/// good. The signed text binds them to the question (publisher, `after`, the asker's `question_id`) and to
/// the exact list of events given.
public enum FetchSeal {
    public static let topic = "events.fetch"

    public static func text(_ question: EventFetch, _ answer: FetchedEvents) -> Data {
        let lines = [question.publisher ?? "", String(question.after), answer.through.map(String.init) ?? "-",
                     answer.epoch ?? "-", question.questionID ?? "-"] + answer.events.map(\.proof)
        return Data(lines.joined(separator: "\n").utf8)
    }

    /// `answer` with its proof, signed by `publisher` with its credential `key`.
    public static func sealed(_ answer: FetchedEvents, for question: EventFetch, publisher: String, key: HMACKey) -> FetchedEvents {
        var sealed = answer
        sealed.questionID = question.questionID
        let proof = EventSeal.proof(topic: topic, event: text(question, sealed), publisher: publisher, key: key)
        sealed.proof = String(decoding: proof, as: UTF8.self)
        return sealed
    }

    /// Whether `answer` is `publisher`'s own answer to `question`.
    public static func verify(_ answer: FetchedEvents, for question: EventFetch, publisher: String, by verifier: inout EventVerifier) -> Bool {
        guard let proof = answer.proof, answer.questionID == question.questionID,
              let signer = verifier.publisher(topic: topic, event: text(question, answer), proof: Data(proof.utf8)) else { return false }
        return signer == publisher
    }
}
