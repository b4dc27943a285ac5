public import JSON

extension DataService {
    /// The user a session token belongs to; nil when no user holds it.
    ///
    /// LeanCloud keeps a user's current session token on the `_User` object itself, and so does
    /// this host: the lookup is an indexed equality query.
    public func user(forSessionToken token: String, in environment: EnvironmentName) async throws -> StoredObject? {
        guard !token.isEmpty else { return nil }
        return try await user(where: "sessionToken", equals: token, in: environment)
    }

    /// The user of a session token as the REST API shows it (no password), for `Caller.user`
    /// and `request.currentUser`; nil when no user holds the token.
    public func userJSON(forSessionToken token: String, in environment: EnvironmentName) async throws -> JSONValue? {
        guard let user = try await user(forSessionToken: token, in: environment) else { return nil }
        var json = user.restJSON()
        json["sessionToken"] = .string(token)
        return .object(json)
    }
}

extension DataService {
    /// The user whose `field` (`username`, `email`, `mobilePhoneNumber`, `authData.x.uid`)
    /// equals `value` in an environment's data; nil when none does.
    public func user(where field: String, equals value: String, in environment: EnvironmentName) async throws
        -> StoredObject?
    {
        let storage = engines.engine(for: environment)
        guard try await storage.classExists("_User") else { return nil }
        var query = ObjectQuery(className: "_User", limit: 1)
        query.predicate = try QueryPredicate(where: [field: .string(value)])
        return try await storage.find(query).first
    }

    /// The user with this mobile phone number: 212 when it is empty, 127 when malformed, 213
    /// when no user has it.
    func user(withPhone phone: String, in environment: EnvironmentName) async throws -> StoredObject {
        try UserVerification.checkPhone(phone)
        guard let user = try await user(where: "mobilePhoneNumber", equals: phone, in: environment) else {
            throw DataAPIError(.mobilePhoneNotFound, "Could not find a user with this mobile phone number.")
        }
        return user
    }
}
