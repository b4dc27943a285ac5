import DataAPI
import Hummingbird
import JSON
import Logging

/// The object operations of the REST API, shared by the `/classes` routes and `/batch`, so a
/// request means the same thing whichever way it arrives.
struct ObjectEndpoint: Sendable {
    let data: DataService
    /// Logins with a linked `authData`, on the server's clock.
    let accounts: UserAccounts
    /// What a new user is sent (verification link or code), when the settings say so.
    let verification: UserVerification
    /// The address links in emails start with; nil sends none (`serve` refuses
    /// `--verify-email-on-signup` without it).
    let publicURL: String?
    /// Where failures to send signup messages are logged.
    let logger: Logger
    /// The files a `_File` object deleted through `/classes` is deleted as (bytes and file hooks);
    /// nil deletes it as a plain object.
    var files: FileService? = nil
    /// Whether a file's owner may delete it without the master key (as for `DELETE /files/{id}`).
    var ownersMayDeleteFiles = false
    /// What signup messages pass first (send limits); nil sends them unchecked.
    var gate: MessageGate? = nil

    /// The class a path names: the iOS SDK writes `_File` as `_file`.
    static func canonical(_ className: String) -> String {
        className == "_file" ? "_File" : className
    }

    func create(
        _ className: String, body: [String: JSONValue], parameters: [String: String], caller: Caller, origin: RequestOrigin
    ) async throws -> JSONResponse {
        var body = body
        let fetchWhenSave = Self.fetchWhenSave(&body, parameters)
        let caller = try Self.skippingHooks(&body, caller: caller)
        let written: Written
        if className == "_User", case .object(let authData)? = body["authData"] {
            // LeanCloud's loginWithAuthData: a third-party account already linked (or its UnionID's
            // main account) logs its user in, whatever other fields the body has; with
            // `failOnNotExist=true` the app asks for more before a signup (211, nothing created).
            switch try await accounts.signUpOrLogIn(
                body, authData: authData, caller: caller, failOnNotExist: Self.flag(parameters["failOnNotExist"]))
            {
            case .loggedIn(let user): return JSONResponse(status: .ok, user)
            case .signedUp(let user): written = user
            }
        } else {
            written = try await data.creating(className, body: body, caller: caller)
        }
        let object = written.object
        if className == "_User" {
            do {
                if let gate {
                    try await gate.sendSignupMessages(
                        to: object, verification: verification, linkBase: publicURL, caller: caller, client: origin.client)
                } else {
                    try await verification.sendSignupMessages(to: object, linkBase: publicURL)
                }
            } catch {
                // The user exists either way; they can ask for the message again.
                logger.error("Signup message to user \(object.objectId) not sent: \(error)")
            }
        }
        var headers: HTTPFields = [:]
        headers[.location] = "/\(origin.apiVersion)/classes/\(className)/\(object.objectId)"
        var json: [String: JSONValue] = ["objectId": .string(object.objectId), "createdAt": .string(object.createdAt)]
        // A signup answers with the new user's session, as LeanCloud's does.
        if className == "_User" { json["sessionToken"] = object.fields["sessionToken"] }
        let hookChanged = written.ranBeforeHook
        // A third-party or anonymous signup answers with the whole user, authData included, as
        // LeanCloud's does: the SDK keeps it as the current user.
        let whole = fetchWhenSave || (className == "_User" && body["authData"] != nil)
        guard whole || hookChanged else { return JSONResponse(status: .created, .object(json), headers: headers) }
        // A new user is answered its own view, though nobody was signed in to ask.
        let answered = try await data.answering(object, caller: caller, asUser: className == "_User" ? object.objectId : nil)
        if let answered, whole {
            json = answered.restJSON().merging(json) { _, signup in signup }
        } else if let answered {
            // The client gets back what a beforeSave hook changed, so it holds what was stored.
            for (key, value) in answered.fields where key != "ACL" && body[key] != value { json[key] = value }
        } else if whole {
            // An object its creator can't read: only what the creator sent itself.
            json.merge(DataService.literals(of: body)) { server, _ in server }
        }
        return JSONResponse(status: .created, .object(json), headers: headers)
    }

    func update(
        _ className: String, id: String, body: [String: JSONValue], parameters: [String: String], caller: Caller
    ) async throws -> JSONResponse {
        var body = body
        let fetchWhenSave = Self.fetchWhenSave(&body, parameters)
        let caller = try Self.skippingHooks(&body, caller: caller)
        let update = try await data.update(
            className, id: id, body: body, condition: try Self.condition(parameters), caller: caller)
        let (written, changedKeys, hookChanged) = (update.object, update.changedKeys, update.ranBeforeHook)
        var json: [String: JSONValue] = ["objectId": .string(written.objectId), "updatedAt": .string(written.updatedAt)]
        guard fetchWhenSave || hookChanged else { return JSONResponse(.object(json)) }
        guard let object = try await data.answering(written, caller: caller) else {
            // An object the writer can't read (public write, owner read): only what it sent itself.
            if fetchWhenSave { json.merge(DataService.literals(of: body)) { server, _ in server } }
            return JSONResponse(.object(json))
        }
        if fetchWhenSave {
            // LeanCloud answers an update with the new values of the fields it changed.
            for key in changedKeys { json[key] = object.fields[key] }
        } else if hookChanged {
            // ... and here also with what a beforeUpdate hook changed, which LeanCloud never applies.
            for key in changedKeys where body[key] != object.fields[key] && !Self.isOperation(body[key]) {
                json[key] = object.fields[key]
            }
        }
        return JSONResponse(.object(json))
    }

    /// Deletes one object, or each of `id1,id2,...` (the JS SDK's `destroyAll`), every one
    /// with its hooks and ACL; the body may name hooks to skip.
    func delete(
        _ className: String, id: String, body: [String: JSONValue] = [:], parameters: [String: String], caller: Caller
    ) async throws -> JSONResponse {
        let ids = id.split(separator: ",", omittingEmptySubsequences: true).map(String.init)
        guard ids.count == 1 else {
            _ = try await deleteExisting(className, ids: ids, body: body, parameters: parameters, caller: caller)
            return JSONResponse([:])
        }
        var body = body
        let caller = try Self.skippingHooks(&body, caller: caller)
        try await deleteOne(Self.canonical(className), id: ids[0], condition: try Self.condition(parameters), caller: caller)
        return JSONResponse([:])
    }

    /// Deletes the objects of `ids` that exist, as `deleteAll` does (every before-hook before the
    /// first delete), and answers how many existed. The dialects answer that count
    /// (`{"number":n}`, 0 for a missing id), where LeanCloud's `delete` answers `{}` either way.
    /// The body may name hooks to skip; a `where` in `parameters` makes each delete conditional.
    func deleteExisting(
        _ className: String, ids: [String], body: [String: JSONValue] = [:], parameters: [String: String], caller: Caller
    ) async throws -> Int {
        var body = body
        let caller = try Self.skippingHooks(&body, caller: caller)
        return try await deleteAll(className, ids: ids, condition: try Self.condition(parameters), caller: caller).count
    }

    /// Deletes several objects as one request: every object is checked, and every before-hook
    /// runs, before the first is deleted; one refused deletes none. Ids with no object are
    /// skipped. Answers the ids deleted.
    private func deleteAll(_ className: String, ids: [String], condition: QueryPredicate?, caller: Caller) async throws -> [String] {
        let className = Self.canonical(className)
        guard className == "_File", let files else {
            return try await data.deleteAll(className, ids: ids, condition: condition, caller: caller)
        }
        return try await files.deleteAll(ids: ids, caller: caller, ownersMayDelete: ownersMayDeleteFiles)
    }

    /// Deletes one object; a `_File` is deleted as its file (its bytes too, its hooks,
    /// `/files/{id}`'s permissions).
    private func deleteOne(_ className: String, id: String, condition: QueryPredicate?, caller: Caller) async throws {
        if className == "_File", let files {
            try await files.delete(id: id, caller: caller, ownersMayDelete: ownersMayDeleteFiles)
        } else {
            try await data.delete(className, id: id, condition: condition, caller: caller)
        }
    }

    func fetch(_ className: String, id: String, parameters: [String: String], caller: Caller) async throws -> JSONResponse {
        let className = Self.canonical(className)
        let include = parameters["include"].map(ObjectQuery.includePaths) ?? []
        guard let object = try await data.fetch(className, id: id, include: include, caller: caller) else {
            return JSONResponse([:])
        }
        var json = object.restJSON()
        if let keys = parameters["keys"], !keys.isEmpty { json = KeySelection(keys).apply(to: json) }
        return JSONResponse(.object(json))
    }

    func find(_ className: String, parameters: [String: String], caller: Caller) async throws -> JSONResponse {
        var className = Self.canonical(className)
        // A relation query whose target class the client doesn't know: it names the owner's
        // class and the relation's key, and the answer says which class it found (`className`).
        let redirected = try await relationTarget(className, parameters: parameters, caller: caller)
        if let redirected { className = redirected }
        let withCount = Self.flag(parameters["count"])
        let (query, objects, count) = try await data.find(
            className, parameters: parameters, withCount: withCount, caller: caller)
        let results: [JSONValue] = objects.map { object in
            let json = object.restJSON(includeACL: query.returnACL)
            return .object(query.keys?.apply(to: json) ?? json)
        }
        var body: [String: JSONValue] = ["results": .array(results)]
        if let count { body["count"] = .int(Int64(count)) }
        if let redirected { body["className"] = .string(redirected) }
        return JSONResponse(.object(body))
    }

    /// The class `redirectClassNameForKey=key` sends a query to: the target of relation `key`
    /// on the `$relatedTo` owner, read as the caller reads it (an owner it can't read redirects
    /// nothing); nil without the parameter.
    private func relationTarget(_ className: String, parameters: [String: String], caller: Caller) async throws -> String? {
        guard let key = parameters["redirectClassNameForKey"], !key.isEmpty, let whereText = parameters["where"],
            let predicate = try? JSONValue(parsing: Array(whereText.utf8)),
            let owner = predicate["$relatedTo"]?["object"], owner["className"]?.stringValue == className,
            let ownerId = owner["objectId"]?.stringValue, predicate["$relatedTo"]?["key"]?.stringValue == key
        else { return nil }
        let object = try await data.fetch(className, id: ownerId, include: [], caller: caller)
        guard let relation = object?.fields[key], relation.typeTag == "Relation" else { return nil }
        return relation["className"]?.stringValue
    }

    /// Whether the answer carries the saved fields: `fetchWhenSave` in the query or the body,
    /// or the JS SDK's `?new=true`. The body key is always removed: SDKs put it in either.
    private static func fetchWhenSave(_ body: inout [String: JSONValue], _ parameters: [String: String]) -> Bool {
        let inBody = body.removeValue(forKey: "fetchWhenSave") == true
        return flag(parameters["fetchWhenSave"]) || flag(parameters["new"]) || inBody
    }

    /// The caller with the hooks a body names in `__ignore_hooks` (LeanCloud's
    /// `["beforeSave", "afterSave", ...]`) skipped, for the master key or the hook key; the key
    /// never becomes a field.
    static func skippingHooks(_ body: inout [String: JSONValue], caller: Caller) throws -> Caller {
        guard let value = body.removeValue(forKey: "__ignore_hooks") else { return caller }
        guard caller.mayIgnoreHooks else {
            throw HostError(status: .forbidden, code: 119, message: "__ignore_hooks needs the master key or the hook key.")
        }
        guard case .array(let names) = value else {
            throw HostError(status: .badRequest, code: 107, message: "__ignore_hooks must be a list of hook names.")
        }
        var caller = caller
        for name in names {
            guard let kind = name.stringValue.flatMap(HookKind.init(rawValue:)) else {
                throw HostError(status: .badRequest, code: 107, message: "Unknown hook \(name.jsonString) in __ignore_hooks.")
            }
            caller.skippedHooks.insert(kind)
        }
        return caller
    }

    /// The `where` parameter of a conditional update or delete.
    private static func condition(_ parameters: [String: String]) throws -> QueryPredicate? {
        guard let text = parameters["where"], !text.isEmpty else { return nil }
        return try QueryPredicate(whereText: text)
    }

    private static func isOperation(_ value: JSONValue?) -> Bool {
        value?["__op"] != nil
    }

    private static func flag(_ text: String?) -> Bool {
        text == "true" || text == "1"
    }
}
