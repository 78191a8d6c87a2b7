import Credentials
import Foundation
import Schema

/// Who is calling: an app's server (HTTP Basic `app_key:master_secret`) or the deployment's admin
/// (`Bearer <admin secret>`). A master secret is checked by deriving it from server.key, as the
/// gateway checks an app's proof: no lookup, and a wrong secret costs one HMAC.
public enum Caller: Equatable, Sendable {
    case app(String)
    case admin

    /// The caller that `authorization` proves, or nil when it proves none. The scheme is matched
    /// without regard to case and may be followed by several spaces, as RFC 7235 reads it.
    public static func from(_ authorization: String?, secrets: Secrets) -> Caller? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        switch parts[0].lowercased() {
        case "bearer":
            return HMAC.equal(credentials, secrets.admin) ? .admin : nil
        case "basic":
            guard let decoded = Data(base64Encoded: credentials), let text = String(data: decoded, encoding: .utf8),
                  let colon = text.firstIndex(of: ":") else { return nil }
            let appKey = String(text[..<colon])
            let secret = String(text[text.index(after: colon)...])
            guard (try? Validate.appKey(appKey)) != nil else { return nil }
            return HMAC.equal(secret, secrets.masterSecret(appKey: appKey)) ? .app(appKey) : nil
        default:
            return nil
        }
    }
}
