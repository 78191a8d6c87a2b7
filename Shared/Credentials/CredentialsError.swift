/// Why the deployment's secrets cannot be used, said so that an operator knows which file to fix.
public enum CredentialsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A secret file that still does not hold 64 characters after another process had time to write it.
    case unreadableSecret(path: String)

    public var description: String {
        switch self {
        case .unreadableSecret(let path):
            "\(path) does not hold a secret of 64 hex digits: restore the deployment's copy (every process reads the same one)"
        }
    }
}
