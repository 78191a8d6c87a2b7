/// A request that cannot be carried out: the code that goes back in the reply and a message for people.
/// Thrown by validation, by the codec and by handlers; the worker loop turns it into an error reply.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: ResultCode
    public let message: String

    public init(_ code: ResultCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func invalid(_ message: String) -> CommandError { CommandError(.invalidRequest, message) }
    public static func empty(_ message: String) -> CommandError { CommandError(.emptyRequest, message) }
}
