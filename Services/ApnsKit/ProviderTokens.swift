import Foundation
import JWT
import Schema

/// The provider tokens of the apps this sender serves: each key parsed once, each token signed once
/// and reused for 50 minutes (APNs refuses one older than an hour, and frequent new ones), signed
/// anew when APNs answers `ExpiredProviderToken`. Owned by the sender's thread.
final class ProviderTokens {
    private struct Entry {
        let key: ES256Key
        var token: ProviderToken
    }

    static let lifetime = 50 * 60
    private var entries: [ApnsKey: Entry] = [:]
    private let clock: () -> Int

    init(clock: @escaping () -> Int = { Int(Date().timeIntervalSince1970) }) { self.clock = clock }

    /// The `authorization` header for `key`'s app; throws when the key is not a P-256 .p8.
    func authorization(_ key: ApnsKey) throws -> String {
        let now = clock()
        if let entry = entries[key], now - entry.token.issuedAt < Self.lifetime { return entry.token.authorization }
        let parsed = try entries[key]?.key ?? ES256Key(pem: key.p8)
        let token = try ProviderToken(key: parsed, keyID: key.keyID, teamID: key.teamID, issuedAt: now)
        if entries.count >= 1024 { entries.removeAll() }  // apps are few; a flood of keys starts over
        entries[key] = Entry(key: parsed, token: token)
        return token.authorization
    }

    /// Forgets `key`'s token, so the next `authorization` signs a new one.
    func expire(_ key: ApnsKey) {
        guard var entry = entries[key] else { return }
        entry.token = (try? ProviderToken(key: entry.key, keyID: key.keyID, teamID: key.teamID, issuedAt: clock())) ?? entry.token
        entries[key] = entry
    }
}
