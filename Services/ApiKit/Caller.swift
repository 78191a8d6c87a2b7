import Credentials
import Foundation
import Schema

/// Who is calling: an app's server (HTTP Basic `app_key:master_secret`) or the deployment's admin
/// (`Bearer <admin secret>`). A master secret is checked by deriving it from server.key, as the
/// gateway checks an app's proof: no lookup, and a wrong secret costs one HMAC.
public enum Caller: Equatable, Sendable {
    case app(String)
    case admin

    /// The caller that `authorization` proves, or nil when it proves none.
    public static func from(_ authorization: String?, secrets: Secrets) -> Caller? {
        guard let authorization else { return nil }
        if authorization.hasPrefix("Bearer ") {
            let token = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            return HMAC.equal(token, secrets.admin) ? .admin : nil
        }
        guard authorization.hasPrefix("Basic "),
              let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        let appKey = String(text[..<colon])
        let secret = String(text[text.index(after: colon)...])
        guard (try? Validate.appKey(appKey)) != nil else { return nil }
        return HMAC.equal(secret, secrets.masterSecret(appKey: appKey)) ? .app(appKey) : nil
    }
}
