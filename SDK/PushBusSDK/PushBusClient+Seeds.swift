import Foundation

/// The seed's completion shapes (000, "Tags Block", "Alias Block").
public typealias TagsCompletion = (_ code: Int, _ tags: Set<String>?, _ seq: Int) -> Void
public typealias TagValidCompletion = (_ code: Int, _ tags: Set<String>?, _ seq: Int, _ isBind: Bool) -> Void
public typealias AliasCompletion = (_ code: Int, _ alias: String?, _ seq: Int) -> Void

/// An error a seed's `completion:(NSError *)` form reports: nil on success, else the code.
public struct PushBusError: Error, Equatable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public var description: String { "\(code): \(message)" }
}

/// MTPushService's tags, alias, badge, mobile number and language calls (seed 000, 002), method for
/// method: the seed's checks first (an invalid tag is 6005 with no request), then the command.
extension PushBusClient {
    // MARK: tags

    public func setTags(_ tags: Set<String>, completion: @escaping TagsCompletion, seq: Int) {
        tagsCommand("tags.set", tags, completion: completion, seq: seq)
    }

    public func addTags(_ tags: Set<String>, completion: @escaping TagsCompletion, seq: Int) {
        tagsCommand("tags.add", tags, completion: completion, seq: seq)
    }

    public func deleteTags(_ tags: Set<String>, completion: @escaping TagsCompletion, seq: Int) {
        tagsCommand("tags.delete", tags, completion: completion, seq: seq)
    }

    public func cleanTags(_ completion: @escaping TagsCompletion, seq: Int) {
        perform("tags.clean", [:]) { reply in completion(Self.code(reply), nil, seq) }
    }

    public func getAllTags(_ completion: @escaping TagsCompletion, seq: Int) {
        perform("tags.get", [:]) { reply in completion(Self.code(reply), Self.tags(reply), seq) }
    }

    public func validTag(_ tag: String, completion: @escaping TagValidCompletion, seq: Int) {
        if let code = Validation.tags([tag]) { return refuse(code) { _ in completion(code, nil, seq, false) } }
        perform("tags.valid", ["tag": tag]) { reply in
            completion(Self.code(reply), [tag], seq, reply["is_bind"] as? Bool ?? false)
        }
    }

    private func tagsCommand(_ command: String, _ tags: Set<String>, completion: @escaping TagsCompletion, seq: Int) {
        if let code = Validation.tags(tags) { return refuse(code) { _ in completion(code, tags, seq) } }
        perform(command, ["tags": tags.sorted()]) { reply in completion(Self.code(reply), Self.tags(reply) ?? tags, seq) }
    }

    // MARK: alias

    public func setAlias(_ alias: String, completion: @escaping AliasCompletion, seq: Int) {
        if let code = Validation.alias(alias) { return refuse(code) { _ in completion(code, alias, seq) } }
        perform("alias.set", ["alias": alias]) { reply in completion(Self.code(reply), reply["alias"] as? String ?? alias, seq) }
    }

    public func deleteAlias(_ completion: @escaping AliasCompletion, seq: Int) {
        perform("alias.delete", [:]) { reply in completion(Self.code(reply), nil, seq) }
    }

    public func getAlias(_ completion: @escaping AliasCompletion, seq: Int) {
        perform("alias.get", [:]) { reply in completion(Self.code(reply), reply["alias"] as? String, seq) }
    }

    // MARK: badge, mobile number, language

    /// The server-kept badge (0...99999), which pushes raise by +N; seed 002's form with an error.
    public func setBadge(_ value: Int, completion: ((PushBusError?) -> Void)? = nil) {
        guard (0...99_999).contains(value) else {
            return refuse(PushBusCode.invalidRequest) { _ in completion?(PushBusError(code: PushBusCode.invalidRequest, message: "badge is 0...99999")) }
        }
        perform("badge.set", ["value": value]) { reply in completion?(Self.error(reply)) }
    }

    public func resetBadge(completion: ((PushBusError?) -> Void)? = nil) {
        perform("badge.reset", [:]) { reply in completion?(Self.error(reply)) }
    }

    /// Binds a mobile number (nil or "" unbinds): 6023 / 6025 from the SDK's own check.
    public func setMobileNumber(_ mobile: String?, completion: ((PushBusError?) -> Void)? = nil) {
        if let code = Validation.mobile(mobile) {
            return refuse(code) { _ in completion?(PushBusError(code: code, message: "invalid mobile number")) }
        }
        perform("device.mobile", ["mobile": mobile ?? ""]) { reply in completion?(Self.error(reply)) }
    }

    public func setUserLanguage(_ language: String, completion: ((PushBusError?) -> Void)? = nil) {
        perform("device.update", ["language": language]) { reply in completion?(Self.error(reply)) }
    }

    // MARK: replies

    static func code(_ reply: [String: Any]) -> Int { reply["code"] as? Int ?? PushBusCode.unknownError }

    static func tags(_ reply: [String: Any]) -> Set<String>? { (reply["tags"] as? [String]).map(Set.init) }

    static func error(_ reply: [String: Any]) -> PushBusError? {
        let code = code(reply)
        return code == PushBusCode.success ? nil : PushBusError(code: code, message: reply["message"] as? String ?? "")
    }
}
