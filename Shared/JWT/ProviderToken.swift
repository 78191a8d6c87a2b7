import Foundation

/// An APNs provider authentication token: a JWT whose header names the key (`kid`) and whose
/// claims name the team (`iss`) and when it was made (`iat`), signed ES256 with the team's .p8 key.
/// APNs refuses one older than an hour and one renewed more often than every 20 minutes, so a
/// sender makes one, keeps it, and makes the next when `issuedAt` is 20–60 minutes old.
public struct ProviderToken: Sendable, Equatable {
    /// The compact JWT: `header.claims.signature`, each base64url without padding.
    public let text: String
    /// Unix seconds, as in the `iat` claim.
    public let issuedAt: Int

    /// Signs a token for `teamID` with `key`, whose ten-character Key ID from Apple is `keyID`.
    public init(key: ES256Key, keyID: String, teamID: String, issuedAt: Int = Int(Date().timeIntervalSince1970)) throws(JWTError) {
        let header: Data, claims: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            header = try encoder.encode(Header(alg: "ES256", kid: keyID))
            claims = try encoder.encode(Claims(iss: teamID, iat: issuedAt))
        } catch {
            throw .signing("JSON: \(error)")
        }
        let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.sign(Data(input.utf8))
        text = input + "." + Base64URL.encode(signature)
        self.issuedAt = issuedAt
    }

    /// The value of the `authorization` header APNs reads.
    public var authorization: String { "bearer \(text)" }

    private struct Header: Encodable {
        let alg: String
        let kid: String
    }

    private struct Claims: Encodable {
        let iss: String
        let iat: Int
    }
}
