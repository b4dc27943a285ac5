public import JSON

extension UserAccounts {
    /// LeanCloud's `loginWithAuthData`: the user an `authData` names, logged in; nil when no
    /// user is linked yet (the caller then signs one up, or answers 211 for `failOnNotExist`).
    ///
    /// For each provider (in name order), as LeanCloud documents UnionID logins: the main
    /// account of the entry's UnionID on its platform first (the entry is then added to it,
    /// unless another user holds it), else the user holding `authData.<provider>.<uid>` (marked
    /// as the UnionID's main account when the entry asks to be). A UnionID matches only on its
    /// own platform: `_qq_unionid` is never looked up for a `weixin` entry.
    public func logIn(authData: [String: JSONValue], caller: Caller = .master) async throws -> JSONValue? {
        for (provider, entry) in authData.sorted(by: { $0.key < $1.key }) {
            guard let (key, uid) = DataService.authDataIdentity(entry) else { continue }
            let holder = try await data.user(where: "authData.\(provider).\(key)", equals: uid)
            let union = try UnionID(entry: entry)
            // The main account comes first, so a developer's new app reaches it even where an
            // older account of that app holds the same openid (LeanCloud's migration story).
            if let union, let main = try await data.user(where: "authData.\(union.key).uid", equals: union.id) {
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
        let user = providers.isEmpty ? user : try await write(user.objectId, ["authData": .object(providers)])
        try await runOnLogin(user, caller: caller)
        return try await withSession(user)
    }
}
