public import Foundation
public import JSON

/// Logging in and out, the current user, passwords and session tokens, with LeanCloud's
/// lockout: more than 6 failed logins within 15 minutes lock the account until 15 minutes
/// after the last failure, whatever credentials come next. Each check is counted before it runs
/// (`beginAttempt`), so concurrent guesses can't get more checks than that.
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

    /// How often verification codes may be guessed (for logins by SMS code).
    package var codeLimits = VerificationCodes.Limits()
    /// The key SMS login codes are stored under (the same as `UserVerification`'s).
    package let codeSecret: VerificationCodes.Secret

    /// Creates the accounts over a data service.
    package init(data: DataService, codeSecret: VerificationCodes.Secret, now: @escaping @Sendable () -> Date = { Date() }) {
        self.data = data
        self.codeSecret = codeSecret
        self.now = now
    }

    private var codes: VerificationCodes {
        VerificationCodes(data: data, secret: codeSecret, now: now, limits: codeLimits)
    }

    /// Logs in by `username`, `email` or `mobilePhoneNumber` with `password`, or by
    /// `mobilePhoneNumber` with an `smsCode` from `requestLoginSmsCode`; returns the user's REST
    /// JSON with its `sessionToken`.
    /// `client` is the address the request came from (wrong codes are counted per address too).
    public func logIn(_ body: [String: JSONValue], caller: Caller = .master, client: String? = nil) async throws -> JSONValue {
        if let code = body["smsCode"]?.stringValue {
            let user = try await data.user(withPhone: body["mobilePhoneNumber"]?.stringValue ?? "", in: caller.environment)
            return try await logIn(user, smsCode: code, purpose: .login, caller: caller, client: client)
        }
        guard let password = body["password"]?.stringValue, !password.isEmpty else {
            throw DataAPIError(.passwordMissing, "Password is missing or empty.")
        }
        guard let (field, value) = ["username", "email", "mobilePhoneNumber"].lazy
            .compactMap({ key in body[key]?.stringValue.map { (key, $0) } }).first
        else {
            throw DataAPIError(.usernameMissing, "Username is missing or empty.")
        }
        guard let user = try await user(where: field, equals: value, caller: caller) else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        try await beginAttempt(on: user, caller: caller)
        guard let stored = user.fields["password"]?.stringValue, await PasswordHasher.verify(password, against: stored) else {
            throw DataAPIError(.passwordMismatch, "The username and password mismatch.")
        }
        // An imported LeanCloud hash is replaced by this host's own at the first login that proves it.
        if PasswordHasher.needsRehash(stored) {
            try await data.storePasswordHash(await PasswordHasher.hash(password), userId: user.objectId, in: caller.environment)
        }
        return try await complete(user, setting: [:], caller: caller)
    }

    /// LeanCloud's `usersByMobilePhone`: the user with this phone number logged in with a code
    /// from `requestSmsCode`, signed up first (username = the number) when no user has it.
    /// Returns the user with its session, and whether it was created.
    public func signUpOrLogIn(
        phone: String, smsCode: String, password: String?, caller: Caller, client: String? = nil
    ) async throws -> (user: JSONValue, created: Bool) {
        try UserVerification.checkPhone(phone)
        if let user = try await data.user(where: "mobilePhoneNumber", equals: phone, in: caller.environment) {
            return (try await logIn(user, smsCode: smsCode, purpose: .sms, caller: caller, client: client), false)
        }
        _ = try await codes.redeem(.sms, code: smsCode, target: phone, client: client)
        var body: [String: JSONValue] = [
            "username": .string(phone), "mobilePhoneNumber": .string(phone), "mobilePhoneVerified": true,
        ]
        if let password, !password.isEmpty { body["password"] = .string(password) }
        // The server signs the user up (it sets the verified flag), in the caller's environment,
        // so that environment's beforeSave and afterSave hooks of _User run.
        let user = try await data.create("_User", body: body, caller: caller.asServer())
        return (try await withSession(user, caller: caller), true)
    }

    /// The user a password login names. Usernames are stored normalised, so the typed one is
    /// looked up normalised (another spelling of the same name finds it); a username stored
    /// before names were normalised is still found by its exact bytes.
    private func user(where field: String, equals value: String, caller: Caller) async throws -> StoredObject? {
        guard field == "username" else { return try await data.user(where: field, equals: value, in: caller.environment) }
        let normalized = Identity.normalized(value)
        if let user = try await data.user(where: field, equals: normalized, in: caller.environment) { return user }
        return Identity(normalized) == Identity(value) ? nil : try await data.user(where: field, equals: value, in: caller.environment)
    }

    /// A login with an SMS code: a wrong code counts as a failed login, as a wrong password does.
    private func logIn(
        _ user: StoredObject, smsCode: String, purpose: VerificationCodes.Purpose, caller: Caller, client: String?
    ) async throws -> JSONValue {
        try await beginAttempt(on: user, caller: caller)
        let phone = user.fields["mobilePhoneNumber"]?.stringValue ?? ""
        _ = try await codes.redeem(purpose, code: smsCode, target: phone, client: client)
        // The code reached the phone: the number is verified.
        let verified: [String: JSONValue] = user.fields["mobilePhoneVerified"] == true ? [:] : ["mobilePhoneVerified": true]
        return try await complete(user, setting: verified, caller: caller)
    }

    /// Ends a successful login: failures forgotten, `onLogin` asked, the session returned.
    private func complete(_ user: StoredObject, setting fields: [String: JSONValue], caller: Caller) async throws -> JSONValue {
        // The attempt that proved the credentials was written down as a failure: all are forgotten.
        var fields = fields
        fields["_failedLogins"] = ["__op": "Delete"]
        let user = try await write(user.objectId, fields, caller: caller)
        try await runOnLogin(user, caller: caller)
        return try await withSession(user, caller: caller)
    }

    /// The `onLogin` hook, which may refuse the login by throwing.
    func runOnLogin(_ user: StoredObject, caller request: Caller) async throws {
        // The hook's user is the one logging in (LeanEngine's `request.currentUser`).
        let caller = request.asServer(for: .object(user.restJSON()))
        let event = ObjectEvent(className: "_User", object: user.restJSON(), caller: caller)
        _ = try await data.runBefore(.onLogin, event)
        // The hook let the login through: it happened (LiveQuery's `login` event).
        for listener in data.listeners { await listener.didLogIn(event) }
    }

    /// The user of a session token, with the token; 211 when no user holds it.
    public func currentUser(sessionToken: String, caller: Caller) async throws -> JSONValue {
        guard let user = try await data.user(forSessionToken: sessionToken, in: caller.environment) else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        return try await withSession(user, caller: caller)
    }

    /// Changes a user's password after checking the old one, and gives it a new session token
    /// (other sessions end); only the user itself, or the master key. The check of the old
    /// password counts toward the lockout as a login's does: a stolen session mustn't be an
    /// unlimited password oracle.
    public func updatePassword(id: String, old: String, new: String, caller: Caller) async throws -> JSONValue {
        guard caller.isMaster || caller.userId == id else {
            throw DataAPIError(.userNeedsSession, "The user cannot be altered by a client without the session.")
        }
        guard !new.isEmpty else { throw DataAPIError(.passwordMissing, "Password is missing or empty.") }
        guard let user = try await data.storage(for: caller).fetch("_User", id: id) else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        try await beginAttempt(on: user, caller: caller)
        guard let stored = user.fields["password"]?.stringValue, await PasswordHasher.verify(old, against: stored) else {
            throw DataAPIError(.passwordMismatch, "The old password is wrong.")
        }
        let updated = try await write(
            id, ["password": .string(new), "sessionToken": .string(DataService.newSessionToken()), "_failedLogins": ["__op": "Delete"]],
            caller: caller)
        return try await withSession(updated, caller: caller)
    }

    /// Gives a user a new session token, ending the old one; only the user itself, or the master key.
    public func refreshSessionToken(id: String, caller: Caller) async throws -> JSONValue {
        guard caller.isMaster || caller.userId == id else {
            throw DataAPIError(.userNeedsSession, "The user cannot be altered by a client without the session.")
        }
        guard try await data.storage(for: caller).fetch("_User", id: id) != nil else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        return try await withSession(try await write(id, ["sessionToken": .string(DataService.newSessionToken())], caller: caller), caller: caller)
    }

    /// Ends the sessions of the user a token names, as MaxLeap's `GET /2.0/logout` does (MyBaaS
    /// deletes every token of the user, `BAAS:…/AppUserService.java:209-211`): the token stops
    /// working, on every device (a user has one), and its next login gets a new one. LeanCloud's
    /// own logout ends nothing (`UserRoutes`). Answers how many sessions ended: 0 for a token
    /// nobody holds.
    public func endSessions(sessionToken: String, caller: Caller) async throws -> Int {
        guard let user = try await data.user(forSessionToken: sessionToken, in: caller.environment) else { return 0 }
        _ = try await write(user.objectId, ["sessionToken": .string(DataService.newSessionToken())], caller: caller)
        return 1
    }

    /// The server's own writes to a user, in the request's environment: as the master key,
    /// running no hooks.
    func write(_ id: String, _ body: [String: JSONValue], caller: Caller) async throws -> StoredObject {
        try await data.update("_User", id: id, body: body, caller: caller.asServer().withoutHooks).object
    }

    /// A user as a signup, login or `users/me` answers it: its own view (private fields kept,
    /// columns hidden from clients left out), with its session token.
    func withSession(_ user: StoredObject, caller: Caller) async throws -> JSONValue {
        let view = try await data.access(for: caller.asAnonymousClient).view(user, asUser: user.objectId)
        var json = view.restJSON()
        json["sessionToken"] = user.fields["sessionToken"]
        return .object(json)
    }
}
