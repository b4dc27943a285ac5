public import JSON

/// The rules every write to `_User` follows, whichever path it took (signup, `/classes/_User`,
/// batch, cloud code): passwords are hashed before they are stored, usernames, emails and phone
/// numbers are unique, and the fields the server manages can't be set by a client.
extension DataService {
    /// Fields only the server (or the master key) sets.
    static let managedUserFields: Set<String> = [
        "sessionToken", "emailVerified", "mobilePhoneVerified", "_failedLogins", "_loginAttempts",
    ]

    /// Fields never shown in a `_User`'s REST form (the session token is added back only for the
    /// user itself, by signup, login and `users/me`).
    /// (`salt` is an exported LeanCloud user's, which the import folds into `password`.)
    public static let hiddenUserFields: Set<String> = ["password", "sessionToken", "_failedLogins", "_loginAttempts", "salt"]

    /// Checks and completes the body of a `_User` write. `stored` is the user as the update read
    /// it (once, for its ACL check, hooks and this), nil for a signup; `checkedAuthData` is its
    /// `authData` when it was verified already.
    func prepareUser(
        _ body: inout [String: JSONValue], stored: StoredObject?, caller: Caller, checkedAuthData: CheckedAuthData? = nil
    ) async throws {
        let id = stored?.objectId
        if !caller.isMaster {
            for field in Self.managedUserFields where body[field] != nil {
                throw DataAPIError(.readOnlyField, "\(field) is set by the server.")
            }
        }
        Self.foldProviderKeys(&body)
        Identity.normalizeName(in: &body, of: "_User")
        let hasAuthData = try await prepareAuthData(&body, stored: stored, caller: caller, checked: checkedAuthData)
        resetVerification(&body, stored: stored, caller: caller)
        if id == nil {
            // A user signing up with a third-party account (or anonymously) gets a username.
            if hasAuthData, body["username"] == nil { body["username"] = .string(Self.newSessionToken()) }
            guard let username = body["username"]?.stringValue, !username.isEmpty else {
                throw DataAPIError(.usernameMissing, "Username is missing or empty.")
            }
            // The master key may create users without a password (imports, service accounts).
            if !caller.isMaster, !hasAuthData, body["password"]?.stringValue?.isEmpty != false {
                throw DataAPIError(.passwordMissing, "Password is missing or empty.")
            }
            if body["sessionToken"] == nil { body["sessionToken"] = .string(Self.newSessionToken()) }
        }
        try Self.checkCredentialsStayNonBlank(body)
        if let text = body["password"]?.stringValue {
            // Always hashed, even from the master key and even when it looks like a hash: a
            // stored hash chosen by a request could ask for any cost. Only `import` (which writes
            // storage directly) and the server's own re-hash (`storePasswordHash`) store hashes.
            body["password"] = .string(await PasswordHasher.hash(text))
        }
        try await checkUnique(body, except: id, in: storage(for: caller))
    }

    /// LeanCloud's 217 and 218: a write that names `username` or `password` must give it a
    /// non-blank string. A Delete, another operation, null, a number, `""` or spaces would leave
    /// an account nobody can name or log in to (a signup missing either got 200 or 201 already).
    /// The master key is held to it too: it may create a user without a password, or give any
    /// user new credentials, but never blank an account's (see the notes of issue 31).
    static func checkCredentialsStayNonBlank(_ body: [String: JSONValue]) throws(DataAPIError) {
        let rules: [(field: String, error: DataAPIError)] = [
            ("username", DataAPIError(.invalidUsername, "Invalid username, it must be a non-blank string.")),
            ("password", DataAPIError(.invalidPassword, "Invalid password, it must be a non-blank string.")),
        ]
        for (field, error) in rules {
            guard let value = body[field] else { continue }
            guard let text = value.stringValue, !text.allSatisfy(\.isWhitespace) else { throw error }
        }
    }

    /// Stores a hash this host made as a user's password, as it is: the one write of a hash that
    /// doesn't come from `import` (a login re-hashing an imported or older hash). Straight to
    /// storage, since every write through `update` hashes its password.
    func storePasswordHash(_ hash: String, userId: String, in environment: EnvironmentName) async throws {
        _ = try await engines.engine(for: environment).update(
            "_User", id: userId, changes: ObjectChanges(fields: ["password": .set(.string(hash))]), condition: nil)
    }

    /// A new session token: 25 random lower-case letters and digits, as LeanCloud's are.
    public static func newSessionToken() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<25).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    /// Refuses a username, email or phone number another user holds, with its usual code. Only
    /// the first answer: two concurrent writes both pass this, and the unique index of each
    /// field (`UniqueFields`) refuses the second with the same code.
    private func checkUnique(_ body: [String: JSONValue], except id: String?, in storage: any StorageEngine) async throws {
        guard try await storage.classExists("_User") else { return }
        for field in UniqueFields.fields(of: "_User") {
            guard let value = body[field.name], value.stringValue?.isEmpty == false else { continue }
            var query = ObjectQuery(className: "_User", limit: 2)
            query.predicate = try QueryPredicate(where: [field.name: value])
            let holders = try await storage.find(query).filter { $0.objectId != id }
            if !holders.isEmpty { throw field.taken }
        }
    }

    /// The SDKs unlink a provider with `{"authData.weixin": {"__op": "Delete"}}` (and may set
    /// one as `"authData.weixin": {...}`): the same as `{"authData": {"weixin": null}}` (or the
    /// entry), so these keys are folded into `authData`, where the usual checks apply.
    static func foldProviderKeys(_ body: inout [String: JSONValue]) {
        for key in body.keys where key.hasPrefix("authData.") {
            let provider = String(key.dropFirst("authData.".count))
            guard !provider.isEmpty, let value = body.removeValue(forKey: key) else { continue }
            var providers = body["authData"]?.objectValue ?? [:]
            providers[provider] = value["__op"] == "Delete" ? .null : value
            body["authData"] = .object(providers)
        }
    }

    /// The key and value that identify an account at its provider: `uid`, `openid` or `id`
    /// (LeanCloud's `anonymous` provider uses `id`).
    public static func authDataIdentity(_ data: JSONValue) -> (key: String, value: String)? {
        for key in ["uid", "openid", "id"] {
            if let value = data[key]?.stringValue, !value.isEmpty { return (key, value) }
        }
        return nil
    }

    /// Checks `authData` (`{provider: {uid|openid|id, ...}}`), marks a vouched UnionID's main
    /// account (`CheckedAuthData.markingMainAccounts`), merges it into the user's existing
    /// providers on an update (`{provider: null}` unlinks one), and refuses an account or
    /// UnionID already linked to another user (137). Returns whether the body carries authData.
    private func prepareAuthData(
        _ body: inout [String: JSONValue], stored: StoredObject?, caller: Caller, checked: CheckedAuthData?
    ) async throws -> Bool {
        let id = stored?.objectId
        guard let value = body["authData"] else { return false }
        guard case .object(var providers) = value else {
            throw DataAPIError(.incorrectType, "authData must be an object of providers.")
        }
        let vouching: CheckedAuthData
        if let checked {
            vouching = checked
        } else {
            vouching = try await checkAuthData(providers, caller: caller)
            providers = vouching.providers
        }
        providers = try vouching.markingMainAccounts(providers)
        let storage = storage(for: caller)
        var merged: [String: JSONValue] = [:]
        if case .object(let stored)? = stored?.fields["authData"] { merged = stored }
        for (provider, data) in providers {
            if data == .null {
                merged[provider] = nil
                continue
            }
            guard let (key, uid) = Self.authDataIdentity(data) else {
                throw DataAPIError(.incorrectType, "authData.\(provider) needs a uid, openid or id.")
            }
            var query = ObjectQuery(className: "_User", limit: 2)
            query.predicate = try QueryPredicate(where: ["authData.\(provider).\(key)": .string(uid)])
            if try await storage.classExists("_User"), try await storage.find(query).contains(where: { $0.objectId != id }) {
                throw DataAPIError(.duplicateValue, "This \(provider) account is linked to another user.")
            }
            merged[provider] = data
        }
        // An anonymous user that links a real account is no longer anonymous (the SDKs'
        // `isAnonymous()` reads the `anonymous` entry), as on LeanCloud and Parse.
        if id != nil, providers["anonymous"] == nil, providers.contains(where: { $0.value != .null }) {
            merged["anonymous"] = nil
        }
        body["authData"] = .object(merged)
        return true
    }
}

extension DataService {
    /// Verifies the providers of an `authData` before they sign up, log in or are linked. The
    /// `onAuthData` hook of the caller's environment, when there is one, is the verifier: it may
    /// refuse them by throwing, or hand back others (a code exchanged for an openid, say).
    /// Without one, each provider needs a built-in verifier or the operator's trust
    /// (`authDataVerification`), else 251.
    ///
    /// The master key writes what it likes (it is the operator). A caller that skips
    /// `onAuthData` is trusted too: only the master key, the hook key or the app's own cloud code
    /// can ask for that, and the server does it once it has checked the providers itself.
    ///
    /// Which entries' UnionIDs may then be followed or claimed is `CheckedAuthData`'s rule: what
    /// the trusted caller or the hook handed over, or what a verifier or the operator's trust
    /// of the platform vouches for; never `anonymous`. A client's entries nothing could vouch
    /// for are refused before the hook sees them (`AuthDataVerification.refuseUnvouchable`).
    public func checkAuthData(_ providers: [String: JSONValue], caller: Caller) async throws -> CheckedAuthData {
        let trusted = caller.isMaster || caller.skippedHooks.contains(.onAuthData)
        if !trusted { try authDataVerification.refuseUnvouchable(providers) }
        let asked = ObjectEvent(className: "_User", object: ["authData": .object(providers)], caller: caller)
        guard let event = try await runBefore(.onAuthData, asked) else {
            if trusted { return CheckedAuthData(vouchingAll: providers) }
            return CheckedAuthData(providers: providers, vouchedUnionIDs: try authDataVerification.check(providers))
        }
        guard case .object(let checked)? = event.object["authData"] else {
            throw DataAPIError(.incorrectType, "The onAuthData hook must give back an object of providers.")
        }
        return CheckedAuthData(vouchingAll: checked)
    }

    /// A new user's email and phone start unverified, and so does an address or number a user
    /// changes to: only the verification flows (or the master key) make them verified.
    func resetVerification(_ body: inout [String: JSONValue], stored: StoredObject?, caller: Caller) {
        let pairs = [("email", "emailVerified"), ("mobilePhoneNumber", "mobilePhoneVerified")]
        guard pairs.contains(where: { body[$0.0]?.stringValue?.isEmpty == false }) else { return }
        for (field, flag) in pairs {
            guard let value = body[field], value.stringValue?.isEmpty == false, stored?.fields[field] != value else { continue }
            if caller.isMaster, body[flag] != nil { continue }
            body[flag] = false
        }
    }
}

