import Foundation
import JWT
import Schema
import Synchronization

/// The provider tokens of the apps this sender serves: each key parsed once, each token signed once
/// and reused for 50 minutes (APNs refuses one older than an hour, and frequent new ones), signed
/// anew when APNs answers `ExpiredProviderToken`. Used from the worker's thread (signing a batch)
/// and the HTTP/2 loop's (renewing after an expiry), so the entries are behind a lock.
final class ProviderTokens: Sendable {
    private struct Entry: Sendable {
        let key: ES256Key
        var token: ProviderToken
    }

    static let lifetime = 50 * 60
    private let entries = Mutex<[ApnsKey: Entry]>([:])
    private let clock: @Sendable () -> Int

    init(clock: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }) { self.clock = clock }

    /// The `authorization` header for `key`'s app; throws when the key is not a P-256 .p8.
    func authorization(_ key: ApnsKey) throws -> String {
        let now = clock()
        return try entries.withLock { entries in
            if let entry = entries[key], now - entry.token.issuedAt < Self.lifetime { return entry.token.authorization }
            let parsed = try entries[key]?.key ?? ES256Key(pem: key.p8)
            let token = try ProviderToken(key: parsed, keyID: key.keyID, teamID: key.teamID, issuedAt: now)
            if entries.count >= 1024 { entries.removeAll() }  // apps are few; a flood of keys starts over
            entries[key] = Entry(key: parsed, token: token)
            return token.authorization
        }
    }

    /// Signs `key`'s token anew (APNs said it expired) and returns its `authorization` header.
    func renew(_ key: ApnsKey) throws -> String {
        let now = clock()
        return try entries.withLock { entries in
            let parsed = try entries[key]?.key ?? ES256Key(pem: key.p8)
            let token = try ProviderToken(key: parsed, keyID: key.keyID, teamID: key.teamID, issuedAt: now)
            entries[key] = Entry(key: parsed, token: token)
            return token.authorization
        }
    }
}
