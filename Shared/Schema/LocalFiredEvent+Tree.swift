import Foundation
import JSON

// `local.fired`, read by push once per fired local notification: from its parsed tree, with the
// decoder's checks, rather than key by key through the Decoder (a seventh of push's event thread in
// a burst). `FieldCodingTests` reads random events both ways.
extension Event where Body == LocalFiredEvent {
    public static func read(_ data: Data) throws(CommandError) -> Event<LocalFiredEvent> {
        let tree = try WireCodec.decode(JSONValue.self, from: data, readsInPlace: false)
        return try WireCodec.refusing {
            let fields = try TreeFields(tree, as: Event<LocalFiredEvent>.self, path: [])
            typealias Key = LocalFiredEvent.CodingKeys
            let body = LocalFiredEvent(appKey: try fields.string(required: Key.appKey), registrationID: try fields.string(required: Key.registrationID),
                                       identifier: try fields.string(required: Key.identifier),
                                       content: try LocalContent(try fields.object(required: Key.content, as: LocalContent.self)),
                                       firedAt: try fields.string(required: Key.firedAt), nextFireAt: try fields.string(Key.nextFireAt))
            return Event(publisher: try fields.string(required: CodingKeys.publisher), sequence: Int64(try fields.int(required: CodingKeys.sequence)),
                         epoch: try fields.string(CodingKeys.epoch), time: try fields.string(required: CodingKeys.time), body: body)
        }
    }
}

extension LocalContent {
    init(_ fields: TreeFields) throws {
        typealias Key = CodingKeys
        self.init(title: try fields.string(Key.title), subtitle: try fields.string(Key.subtitle), body: try fields.string(Key.body),
                  badge: try fields.int(Key.badge), sound: try fields.string(Key.sound), category: try fields.string(Key.category),
                  userInfo: try fields.object(Key.userInfo))
    }
}
