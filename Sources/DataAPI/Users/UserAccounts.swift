public import Foundation

/// Logging in and out, the current user, passwords and session tokens, with LeanCloud's
/// lockout: more than 6 failed logins within 15 minutes lock the account until 15 minutes
/// after the last failure, whatever credentials come next.
public struct UserAccounts: Sendable {
    /// The service users are read and written through.
    public let data: DataService
    /// The clock the lockout is measured with (a test injects its own).
    public let now: @Sendable () -> Date

    /// How many failures within the window lock an account (more than this many).
    static let allowedFailures = 6
    /// The lockout window, and how long a lock lasts after the last failure.
    static let window: TimeInterval = 15 * 60
    static let lockedMessage =
        "You have exceeded the maximum number of login attempts, please try again later, or consider resetting your password."

    /// Creates the accounts over a data service.
    public init(data: DataService, now: @escaping @Sendable () -> Date = { Date() }) {
        self.data = data
        self.now = now
    }

    /// Logs in by `username`, `email` or `mobilePhoneNumber` with `password`; returns the user's
    /// REST JSON with its `sessionToken`.
    public func logIn(_ body: [String: JSONValue]) async throws -> JSONValue {
        guard let password = body["password"]?.stringValue, !password.isEmpty else {
            throw DataAPIError(.passwordMissing, "Password is missing or empty.")
        }
        guard let (field, value) = ["username", "email", "mobilePhoneNumber"].lazy
            .compactMap({ key in body[key]?.stringValue.map { (key, $0) } }).first
        else {
            throw DataAPIError(.usernameMissing, "Username is missing or empty.")
        }
        guard let user = try await find(field, equalTo: .string(value)) else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        let failures = user.fields["_failedLogins"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        let time = now().timeIntervalSince1970
        if Self.isLocked(failures, at: time) { throw DataAPIError(.internalError, Self.lockedMessage) }
        guard let stored = user.fields["password"]?.stringValue, PasswordHasher.verify(password, against: stored) else {
            // Only the failures that can still count are kept.
            let recent = (failures + [time]).filter { $0 > time - Self.window }
            _ = try await write(user.objectId, ["_failedLogins": .array(recent.map(JSONValue.double))])
            throw DataAPIError(.passwordMismatch, "The username and password mismatch.")
        }
        if !failures.isEmpty { _ = try await write(user.objectId, ["_failedLogins": ["__op": "Delete"]]) }
        try await runOnLogin(user)
        return Self.withSession(user)
    }

    /// LeanCloud's `loginWithAuthData`: the user linked to this `authData` (for its first
    /// provider), logged in; nil when no user is linked yet (the caller then signs one up).
    public func logIn(authData: [String: JSONValue]) async throws -> JSONValue? {
        for (provider, data) in authData.sorted(by: { $0.key < $1.key }) {
            guard let (key, uid) = DataService.authDataIdentity(data) else { continue }
            if let user = try await find("authData.\(provider).\(key)", equalTo: .string(uid)) {
                try await runOnLogin(user)
                return Self.withSession(user)
            }
        }
        return nil
    }

    /// The `onLogin` hook, which may refuse the login by throwing.
    private func runOnLogin(_ user: StoredObject) async throws {
        let caller = Caller(isMaster: true, user: .object(user.restJSON()))
        guard let hooks = data.hooks, hooks.hasHook(.onLogin, for: "_User", caller: caller) else { return }
        _ = try await hooks.runBefore(.onLogin, HookEvent(className: "_User", object: user.restJSON(), caller: caller))
    }

    /// The user of a session token, with the token; 211 when no user holds it.
    public func currentUser(sessionToken: String) async throws -> JSONValue {
        guard let user = try await data.user(forSessionToken: sessionToken) else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        return Self.withSession(user)
    }

    /// Changes a user's password after checking the old one, and gives it a new session token
    /// (other sessions end); only the user itself, or the master key.
    public func updatePassword(id: String, old: String, new: String, caller: Caller) async throws -> JSONValue {
        guard caller.isMaster || caller.userId == id else {
            throw DataAPIError(.userNeedsSession, "The user cannot be altered by a client without the session.")
        }
        guard !new.isEmpty else { throw DataAPIError(.passwordMissing, "Password is missing or empty.") }
        guard let user = try await data.storage.fetch("_User", id: id) else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        guard let stored = user.fields["password"]?.stringValue, PasswordHasher.verify(old, against: stored) else {
            throw DataAPIError(.passwordMismatch, "The old password is wrong.")
        }
        let updated = try await write(id, ["password": .string(new), "sessionToken": .string(DataService.newSessionToken())])
        return Self.withSession(updated)
    }

    /// Gives a user a new session token, ending the old one; only the user itself, or the master key.
    public func refreshSessionToken(id: String, caller: Caller) async throws -> JSONValue {
        guard caller.isMaster || caller.userId == id else {
            throw DataAPIError(.userNeedsSession, "The user cannot be altered by a client without the session.")
        }
        guard try await data.storage.fetch("_User", id: id) != nil else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        return Self.withSession(try await write(id, ["sessionToken": .string(DataService.newSessionToken())]))
    }

    /// Ends a session: the token stops working (the user gets a new one at its next login).
    public func logOut(sessionToken: String) async throws {
        guard let user = try await data.user(forSessionToken: sessionToken) else { return }
        _ = try await write(user.objectId, ["sessionToken": .string(DataService.newSessionToken())])
    }

    /// Whether failures lock the account at `time`: more than six within one window, and the
    /// last one less than a window ago.
    static func isLocked(_ failures: [Double], at time: Double) -> Bool {
        guard let last = failures.max(), time < last + window else { return false }
        return failures.filter { $0 > last - window }.count > allowedFailures
    }

    private func find(_ field: String, equalTo value: JSONValue) async throws -> StoredObject? {
        guard try await data.storage.classExists("_User") else { return nil }
        var query = ObjectQuery(className: "_User", limit: 1)
        query.predicate = try QueryPredicate(where: [field: value])
        return try await data.storage.find(query).first
    }

    /// The server's own writes to a user: as the master key, running no hooks.
    private func write(_ id: String, _ body: [String: JSONValue]) async throws -> StoredObject {
        try await data.update("_User", id: id, body: body, caller: Caller.master.withoutHooks).object
    }

    private static func withSession(_ user: StoredObject) -> JSONValue {
        var json = user.restJSON()
        json["sessionToken"] = user.fields["sessionToken"]
        return .object(json)
    }
}
