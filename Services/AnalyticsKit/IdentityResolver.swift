import Schema
import SQLite

/// Decides which EUID a set of identifiers belongs to and merges the EUIDs they bring together.
///
/// The rule (docs/services/analytics.md):
/// 1. An EUID is *identified* once it holds a `user_id`; otherwise it is *anonymous*.
/// 2. The result EUID: when `user_id` is given, the EUID holding it; if none does, the current EUID when it
///    is anonymous, else a new one (another user signs in where an identified one was). Without `user_id`:
///    the current EUID when it is identified; else the first identified holder of `email`, `phone`,
///    `anonymous_id` (in that order); else their first holder; else the current EUID (new when none).
/// 3. Every other anonymous EUID among the current one and the holders is merged into the result.
/// 4. An identified EUID is never merged into another: an identifier it holds stays with it and gets
///    the per-field result -1.
/// 5. When a device signed the request, an EUID not bound to that device is out of its reach: never
///    the result, never merged; an identifier it holds stays with it and gets -1.
struct IdentityResolver {
    let identities: IdentityStore
    var bindings = DeviceBindings()

    struct Resolution: Equatable {
        let euid: String
        let results: [IdentifierKind: MAFieldResult]
    }

    static let heldByAnotherUser = "User identifier belongs to another identified user"
    static let heldOutOfReach = "User identifier belongs to another user"

    /// `device`: the registration ID of the device that signed the request (rule 5), nil when the app did.
    func resolve(_ db: Database, appKey: String, current: String?, identifiers: [IdentifierKind: String],
                 now: Double, device: String? = nil) throws -> Resolution {
        var holders: [IdentifierKind: String] = [:]
        for (kind, value) in identifiers {
            holders[kind] = try identities.owner(db, appKey: appKey, kind: kind, value: value)
        }
        var outOfReach: Set<String> = []
        if let device {
            for holder in Set(holders.values) where try holder != current && !bindings.isBound(db, registrationID: device, euid: holder) {
                outOfReach.insert(holder)
            }
        }
        let reachable = holders.filter { !outOfReach.contains($0.value) }
        var candidates: [String] = []
        for euid in [reachable[.userID], reachable[.email], reachable[.phone], reachable[.anonymousID], current].compactMap({ $0 })
        where !candidates.contains(euid) {
            candidates.append(euid)
        }
        var identified: Set<String> = []
        for euid in candidates where try identities.isIdentified(db, euid: euid) { identified.insert(euid) }

        let givesUserID = identifiers[.userID] != nil && holders[.userID].map(outOfReach.contains) != true
        let target = try choose(db, appKey: appKey, current: current, givesUserID: givesUserID,
                                holders: reachable, identified: identified, now: now)
        for euid in candidates where euid != target && !identified.contains(euid) {
            try identities.merge(db, euid, into: target)
        }
        var results: [IdentifierKind: MAFieldResult] = [:]
        for kind in IdentifierKind.allCases {
            guard let value = identifiers[kind] else { continue }
            if let holder = holders[kind], outOfReach.contains(holder) {
                results[kind] = MAFieldResult(code: .maFailed, msg: Self.heldOutOfReach)
            } else if let holder = holders[kind], holder != target, identified.contains(holder) {
                results[kind] = MAFieldResult(code: .maFailed, msg: Self.heldByAnotherUser)
            } else {
                try identities.bind(db, appKey: appKey, kind: kind, value: value, euid: target)
                results[kind] = MAFieldResult(code: .success)
            }
        }
        return Resolution(euid: target, results: results)
    }

    private func choose(_ db: Database, appKey: String, current: String?, givesUserID: Bool,
                        holders: [IdentifierKind: String], identified: Set<String>, now: Double) throws -> String {
        if givesUserID {
            if let holder = holders[.userID] { return holder }
            if let current, !identified.contains(current) { return current }
            return try identities.create(db, appKey: appKey, now: now)
        }
        if let current, identified.contains(current) { return current }
        let ordered = [holders[.email], holders[.phone], holders[.anonymousID]].compactMap { $0 }
        if let holder = ordered.first(where: identified.contains) ?? ordered.first ?? current { return holder }
        return try identities.create(db, appKey: appKey, now: now)
    }
}
