import Foundation
import JSON

/// LeanCloud's lockout, counted so that concurrency can't stretch it: every password or code
/// check first writes itself down as a failure, atomically, and only then runs (the slow
/// PBKDF2 verify, the code lookup). A check that proves the credentials forgets the failures
/// (`complete`); one that doesn't leaves its failure counted. So N concurrent wrong logins get
/// exactly as many checks as the lockout allows, on every host sharing the database: the count
/// lives in the user's row, not in a host's memory.
extension UserAccounts {
    /// Attempts one writer may lose to others before it gives up (and refuses, as a locked
    /// account would): far more than any honest contention, a bound on a pathological one.
    static let maxAttemptRetries = 64

    /// Writes one attempt on `user` down as a failure before its credentials are checked, or
    /// throws the lockout error (code 1) when the failures already lock it.
    ///
    /// A compare-and-swap on `_loginAttempts` (how many attempts were ever written down, a
    /// counter only these writes move): the write happens only if nobody else wrote one since
    /// this one read the failures; else it reads them again. Each attempt thereby sees all the
    /// attempts before it, on SQLite and on PostgreSQL, from one host or many.
    func beginAttempt(on user: StoredObject, caller: Caller) async throws {
        var user = user
        for _ in 0..<Self.maxAttemptRetries {
            let failures = user.fields["_failedLogins"]?.arrayValue?.compactMap(\.doubleValue) ?? []
            let time = now().timeIntervalSince1970
            if Self.isLocked(failures, at: time) { throw DataAPIError(.badParameters, Self.lockedMessage) }
            let generation = user.fields["_loginAttempts"]?.intValue
            // Only the failures that can still count are kept.
            let recent = (failures + [time]).filter { $0 > time - Self.window }
            let condition: JSONValue =
                if let generation { ["_loginAttempts": .int(generation)] } else { ["_loginAttempts": ["$exists": false]] }
            do {
                _ = try await data.update(
                    "_User", id: user.objectId,
                    body: ["_failedLogins": .array(recent.map(JSONValue.double)), "_loginAttempts": .int((generation ?? 0) + 1)],
                    condition: try QueryPredicate(where: condition), caller: caller.asServer().withoutHooks)
                return
            } catch let error as DataAPIError where error.code == .conditionNotMatched {
                // Another attempt was written first: read the failures again, with it.
                guard let fresh = try await data.storage(for: caller).fetch("_User", id: user.objectId) else {
                    throw DataAPIError(.userNotFound, "Could not find user.")
                }
                user = fresh
            }
        }
        throw DataAPIError(.badParameters, Self.lockedMessage)
    }

    /// Refuses a login to an account locked by failed logins (code 1), without counting it:
    /// for logins that check no secret of the account's (a verified third-party account).
    func checkNotLocked(_ user: StoredObject) throws {
        let failures = user.fields["_failedLogins"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        if Self.isLocked(failures, at: now().timeIntervalSince1970) {
            throw DataAPIError(.badParameters, Self.lockedMessage)
        }
    }

    /// Whether failures lock the account at `time`: more than six within one window, and the
    /// last one less than a window ago.
    static func isLocked(_ failures: [Double], at time: Double) -> Bool {
        guard let last = failures.max(), time < last + window else { return false }
        return failures.filter { $0 > last - window }.count > allowedFailures
    }
}
