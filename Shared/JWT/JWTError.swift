/// Why a provider token cannot be made, said so that an operator knows what to fix: the key file
/// or the libcrypto underneath.
public enum JWTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The PEM text holds no private key libcrypto can read (or an encrypted one: a .p8 from Apple is not).
    case unreadableKey(String)
    /// A readable key of the wrong kind: ES256 needs an EC key on P-256.
    case notP256(found: String)
    /// libcrypto failed while signing; the step and its reason.
    case signing(String)

    public var description: String {
        switch self {
        case .unreadableKey(let reason): "no private key in the PEM text: \(reason)"
        case .notP256(let found): "the key is \(found), but ES256 needs an EC key on P-256 (prime256v1): use the .p8 file of an APNs auth key"
        case .signing(let reason): "ES256 signing failed: \(reason)"
        }
    }
}
