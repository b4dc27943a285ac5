public import JSON

/// How a signup carrying `authData` ended: its account was linked already and logged in, or
/// a new user was created.
public enum AuthDataSignup: Sendable {
    /// The user the account is linked to, logged in (its REST JSON with `sessionToken`).
    case loggedIn(JSONValue)
    /// A new user, created with the account.
    case signedUp(Written)
}

extension UserAccounts {
    /// LeanCloud's signup-or-login with a third-party account (`POST /users` with `authData`):
    /// the providers are verified once (`onAuthData`, or the built-in checks), then a user
    /// already linked to one of them is logged in; else, unless `failOnNotExist` (211, nothing
    /// created), a new user is signed up with them.
    public func signUpOrLogIn(
        _ body: [String: JSONValue], authData providers: [String: JSONValue], caller: Caller, failOnNotExist: Bool
    ) async throws -> AuthDataSignup {
        let checked = try await data.checkAuthData(providers, caller: caller)
        if let user = try await logIn(authData: checked, caller: caller) { return .loggedIn(user) }
        if failOnNotExist { throw DataAPIError(.userNotFound, "Could not find user.") }
        var body = body
        body["authData"] = .object(checked.providers)
        return .signedUp(
            try await data.creating("_User", body: body, objectId: nil, caller: caller, checkedAuthData: checked))
    }

    /// LeanCloud's `loginWithAuthData`: the user an `authData` names, logged in; nil when no
    /// user is linked yet (the caller then signs one up, or answers 211 for `failOnNotExist`).
    ///
    /// For each provider (in name order), as LeanCloud documents UnionID logins: the main
    /// account of the entry's UnionID on its platform first (the entry is then added to it,
    /// unless another user holds it), else the user holding `authData.<provider>.<uid>` (marked
    /// as the UnionID's main account when the entry asks to be). A UnionID matches only on its
    /// own platform: `_qq_unionid` is never looked up for a `weixin` entry. Only a UnionID
    /// something vouched for is followed or marked (`CheckedAuthData`); another entry is looked
    /// up by its own id alone.
    public func logIn(authData checked: CheckedAuthData, caller: Caller = .master) async throws -> JSONValue? {
        for (provider, entry) in checked.providers.sorted(by: { $0.key < $1.key }) {
            guard let (key, uid) = DataService.authDataIdentity(entry) else { continue }
            let holder = try await data.user(where: "authData.\(provider).\(key)", equals: uid, in: caller.environment)
            let union = try checked.unionID(of: provider, entry: entry)
            // The main account comes first, so a developer's new app reaches it even where an
            // older account of that app holds the same openid (LeanCloud's migration story).
            if let union, let main = try await data.user(where: "authData.\(union.key).uid", equals: union.id, in: caller.environment) {
                let joins = holder == nil && main.fields["authData"]?[provider] == nil
                return try await logIn(main, linking: joins ? [provider: entry] : [:], caller: caller)
            }
            guard let holder else { continue }
            // An account found by its openid becomes the main account when the login says so.
            let marks = union?.isMainAccount == true && holder.fields["authData"]?[union?.key ?? ""] == nil
            return try await logIn(holder, linking: marks ? [provider: entry] : [:], caller: caller)
        }
        return nil
    }

    /// Logs `user` in, first adding `providers` to its `authData` (merged with the ones it has,
    /// the main-account marker added and taken ids refused by `DataService.prepareUser`).
    private func logIn(_ user: StoredObject, linking providers: [String: JSONValue], caller: Caller) async throws -> JSONValue {
        try checkNotLocked(user)
        let user = providers.isEmpty ? user : try await write(user.objectId, ["authData": .object(providers)], caller: caller)
        try await runOnLogin(user, caller: caller)
        return try await withSession(user, caller: caller)
    }
}
