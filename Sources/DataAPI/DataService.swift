public import JSON

/// The one entry point for reading and writing objects, whatever path the request took (REST,
/// batch, and later functions and hooks): it checks names and access, parses the client's
/// changes, and resolves includes and key selections.
public struct DataService: Sendable {
    /// The engines objects are stored in, one per environment. Not public: every read and write
    /// of an app goes through the service's methods, with their access checks and hooks.
    package let engines: StorageEngines
    /// The hooks run around every operation; nil runs none. Set by the Hooks module's
    /// dispatcher (`HookDispatcher.hookedService`), never by app code.
    package var hooks: (any WriteHooks)?
    /// Who hears every committed write (LiveQuery, jobs); see `WriteListener`.
    public var listeners: [any WriteListener] = []
    /// Whether `_User` find is open to every client by default (closed by default, as on
    /// LeanCloud: a client finds its own user only). Class settings stored for `_User` win.
    public var openUserQueries = false
    /// The ACL an object of a class gets when its creator gives none, by class name. The key
    /// `creator` in one stands for the user who creates the object (and is dropped when nobody
    /// is signed in): `{"*": {"read": true}, "creator": {"write": true}}` is LeanCloud's
    /// "everyone reads, the creator writes".
    public var defaultACLs: [String: JSONValue] = [:]
    /// Values a new object's fields take when its creator gives none (LeanCloud's column
    /// default values), by class and field.
    public var fieldDefaults: [String: [String: JSONValue]] = [:]
    /// Whether clients with no signed-in user may create roles (with an ACL), as LeanCloud's
    /// default `_Role` permissions allow. Off by default: a role name taken first by anyone
    /// decides who holds the rights an app gives that role.
    public var anyoneCreatesRoles = false
    /// What third-party accounts (`authData`) need before they are trusted: by default, an
    /// `onAuthData` hook; see `AuthDataVerification`.
    public var authDataVerification = AuthDataVerification()
    /// What one answer may carry: include paths and depth, included objects and bytes.
    public var answerLimits = AnswerLimits()

    /// Class settings read from storage, kept a second (shared by copies of the service).
    let settingsStore = ClassSettingsStore()
    /// Counts committed role changes, against which callers' remembered roles are checked.
    let roleChanges = RoleChanges()

    /// Creates a service over an engine per environment; each answers pointer-target checks
    /// for its own data.
    package init(engines: StorageEngines) {
        self.engines = engines
    }

    /// Creates a service over one storage engine for both environments.
    package init(storage: any StorageEngine) {
        self.init(engines: StorageEngines(storage))
    }

    /// The engine a caller's data lives in: its environment's.
    package func storage(for caller: Caller) -> any StorageEngine {
        engines.engine(for: caller.environment)
    }

    /// Parses write bodies against the classes of a caller's engine (pointer targets).
    func normalizer(for storage: any StorageEngine) -> ValueNormalizer {
        ValueNormalizer(classExists: { storage.isKnownClass($0) })
    }

    /// Creates a service over the embedded SQLite engine.
    package init(sqlite: SQLiteStorage) {
        self.init(storage: sqlite)
    }

    /// Creates an object from a request body, running `beforeSave` and `afterSave`.
    ///
    /// - Parameter objectId: the id the object gets, when one was promised before it existed (a
    ///   file's upload token carries it); nil for a new one.
    public func create(
        _ className: String, body: [String: JSONValue], objectId: String? = nil, caller: Caller
    ) async throws -> StoredObject {
        try await creating(className, body: body, objectId: objectId, caller: caller).object
    }

    /// Creates an object as `create` does, telling also whether a `beforeSave` hook ran.
    public func creating(
        _ className: String, body: [String: JSONValue], objectId: String? = nil, caller: Caller
    ) async throws -> Written {
        try await creating(className, body: body, objectId: objectId, caller: caller, checkedAuthData: nil)
    }

    /// Creates an object; `checkedAuthData` is a user's `authData` when it was verified already
    /// (a third-party signup checks it once, before looking its account up).
    func creating(
        _ className: String, body: [String: JSONValue], objectId: String?, caller: Caller, checkedAuthData: CheckedAuthData?
    ) async throws -> Written {
        try checkWritable(className, id: nil, caller: caller)
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        try await access.check(.create, on: className)
        try await access.checkWritableFields(body, of: className)
        let hooks = operationHooks(for: caller)
        // A beforeSave sees the object as the body makes it (operations applied to nothing).
        let applied = try applying(.create, body, to: [:], className: className, hooks: hooks, storage: storage)
        let event = ObjectEvent(className: className, object: applied?.handed ?? body, sent: body, caller: caller)
        let hooked = try await aroundHooks(.create, event, hooks: hooks) { event, hooked in
            var fields = hooked ? (applied?.body(after: event.object, changed: event.changedKeys) ?? Self.writable(event.object)) : body
            // `"ACL": null` (what the SDKs send for "none set") takes the class default, as a missing one does.
            if fields["ACL"] == .null { fields["ACL"] = nil }
            if fields["ACL"] == nil, let acl = defaultACL(for: className, creator: caller.userId) { fields["ACL"] = acl }
            for (key, value) in fieldDefaults[className] ?? [:] where fields[key] == nil { fields[key] = value }
            // After the hook, which sees the password as the client sent it (as LeanEngine's do).
            if className == "_User" {
                try await prepareUser(&fields, stored: nil, caller: caller, checkedAuthData: checkedAuthData)
            }
            if className == "_Role" { try await checkNewRole(&fields, caller: caller) }
            var changes = try ObjectChanges(body: fields, normalizer: normalizer(for: storage))
            changes.objectId = objectId
            let object = try await storage.create(className, changes: changes)
            if className == "_Role" { roleChanges.bump() }
            return (object, event.after(object))
        }
        return Written(object: hooked.value, changedKeys: [], ranBeforeHook: hooked.ranBeforeHook)
    }

    /// Updates an object from a request body, if it matches `condition`, running
    /// `beforeUpdate` (whose changes are applied) and `afterUpdate`.
    public func update(
        _ className: String, id: String, body: [String: JSONValue], condition: QueryPredicate? = nil, caller: Caller
    ) async throws -> Written {
        try checkWritable(className, id: id, caller: caller)
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        try await access.check(.update, on: className)
        try await access.checkWritableFields(body, of: className)
        let hooks = operationHooks(for: caller)
        // The object's ACL is checked on the row the write reads in its transaction; hooks,
        // listeners and a user's or role's checks see the object as it was, read once before
        // them and checked then (a caller who may not write it runs no hook), as the rights
        // the write was asked with: what the hook does meanwhile doesn't undo them.
        let check = rowCheck(access, conditional: condition != nil)
        let original = try await original(.update, className, id: id, hooks: hooks, check: check, in: storage)
        let checkInWrite = original == nil ? check : nil
        let condition = try await authorizedCondition(access, className, condition)
        // A beforeUpdate sees the object with the update applied to the stored one.
        let applied = try applying(
            .update, body, to: original?.restJSON() ?? [:], className: className, hooks: hooks, storage: storage)
        var object = applied?.handed ?? body
        object["objectId"] = .string(id)
        let event = ObjectEvent(
            className: className, object: object, original: original, updatedKeys: Self.writable(body).keys.sorted(),
            sent: body, caller: caller)
        let hooked = try await aroundHooks(.update, event, hooks: hooks) { event, hooked in
            var fields = hooked ? (applied?.body(after: event.object, changed: event.changedKeys) ?? Self.writable(event.object)) : body
            if className == "_User", let original { try await prepareUser(&fields, stored: original, caller: caller) }
            if className == "_Role", let original { try checkRoleUpdate(&fields, stored: original, caller: caller) }
            let changes = try ObjectChanges(body: fields, normalizer: normalizer(for: storage))
            let object = try await storage.update(className, id: id, changes: changes, condition: condition, check: checkInWrite)
            if className == "_Role" { roleChanges.bump() }
            let changedKeys = changes.fields.keys.sorted()
            return ((object, changedKeys), event.after(object, updatedKeys: changedKeys))
        }
        return Written(object: hooked.value.0, changedKeys: hooked.value.1, ranBeforeHook: hooked.ranBeforeHook)
    }

    /// Deletes an object, if it matches `condition`, running `beforeDelete` and `afterDelete`.
    public func delete(_ className: String, id: String, condition: QueryPredicate? = nil, caller: Caller) async throws {
        try checkWritable(className, id: id, caller: caller)
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        try await access.check(.delete, on: className)
        let hooks = operationHooks(for: caller)
        let check = rowCheck(access, conditional: condition != nil)
        // Without hooks or listeners the row is read once, inside the delete's transaction, and
        // checked there; with them, once before the hook (which a caller who may not delete it
        // doesn't run).
        guard let original = try await original(.delete, className, id: id, hooks: hooks, check: check, in: storage) else {
            let condition = try await authorizedCondition(access, className, condition)
            try await storage.delete(className, id: id, condition: condition, check: check)
            if className == "_Role" { roleChanges.bump() }
            return
        }
        let condition = try await authorizedCondition(access, className, condition)
        let event = ObjectEvent(className: className, object: original.restJSON(), original: original, caller: caller)
        _ = try await aroundHooks(.delete, event, hooks: hooks) { event, _ in
            try await storage.delete(className, id: id, condition: condition)
            if className == "_Role" { roleChanges.bump() }
            return ((), event)
        }
    }

    /// The objects matching a query, with includes resolved, and their count when asked; the
    /// find hooks run around it, as around every query (see `aroundFindHooks`).
    public func find(_ query: ObjectQuery, withCount: Bool = false, caller: Caller) async throws -> (
        objects: [StoredObject], count: Int?
    ) {
        let found = try await finding(query, withCount: withCount, caller: caller)
        return (found.objects, found.count)
    }

    /// `find(_:withCount:caller:)`, answering also the query as `beforeFind` left it (its
    /// `keys` select what is answered).
    public func finding(_ query: ObjectQuery, withCount: Bool = false, caller: Caller) async throws -> (
        query: ObjectQuery, objects: [StoredObject], count: Int?
    ) {
        try await aroundFindHooks(query.className, .query(query), counting: withCount, caller: caller) { query in
            try await read(query, withCount: withCount, caller: caller)
        }
    }

    /// The objects matching a query as the caller may see them, hooks aside: only the find hook
    /// runner calls it, so no query path reads without its hooks.
    private func read(_ query: ObjectQuery, withCount: Bool, caller: Caller) async throws -> (
        objects: [StoredObject], count: Int?
    ) {
        try checkClassName(query.className)
        try await checkIncludes(query.include, of: query.className)
        guard query.order.count <= ObjectQuery.maxOrderKeys else {
            throw DataAPIError(.invalidQuery, "A query sorts by at most \(ObjectQuery.maxOrderKeys) keys.")
        }
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        // Every class, field and subquery of the query is checked, and rows the caller can't
        // read are filtered in the query itself (subqueries included), so pages and counts agree.
        var query = try await access.authorized(query)
        query.fromMaster = caller.isMaster
        guard try await storage.classExists(query.className) else { throw Self.classNotFound }
        // The rows are charged to the answer's budget as the engine reads them: a page too large
        // to answer is refused before it is all in memory.
        let budget = AnswerBudget.forAnswer(answerLimits)
        var objects = query.limit == 0 ? [] : try await storage.find(query, charging: budget)
        let count = withCount ? try await storage.count(query) : nil
        for index in objects.indices { objects[index] = try await access.view(objects[index]) }
        let included = try await IncludeResolver(access: access, budget: budget).resolve(objects, paths: query.include)
        let resolved = try await FileValueResolver(access: access).resolve(included)
        return (resolved, count)
    }

    /// A written object as its writer is answered it (`fetchWhenSave`, fields a hook changed):
    /// the caller's view of it, its File values filled in from their `_File` objects, as a fetch
    /// would. Nil when the caller may not read it: then a write answers only what it sent.
    ///
    /// - Parameter asUser: the user whose view it is when that isn't the caller's (a signup
    ///   answers the new user its own private fields).
    public func answering(_ object: StoredObject, caller: Caller, asUser: String? = nil) async throws -> StoredObject? {
        let access = try await access(for: caller)
        guard access.canRead(object) || (asUser != nil && asUser == object.objectId) else { return nil }
        let viewed = access.isMaster ? object : try await access.view(object, asUser: asUser ?? caller.userId)
        guard FileValueResolver.holdsFiles(viewed) else { return viewed }
        return try await FileValueResolver(access: access).resolve([viewed])[0]
    }

    /// The values a write's body sets literally (no `__op`), which a writer may be answered
    /// even for an object it can't read: it knows them already. A password is never answered.
    public static func literals(of body: [String: JSONValue]) -> [String: JSONValue] {
        body.filter { key, value in
            value["__op"] == nil && key != "password" && !Names.transportKeys.contains(key) && !key.hasPrefix("__")
        }
    }

    /// A written object as the writer is answered it in full (the data APIs of cloud code):
    /// its view when the writer may read it, else its server fields and what the writer sent.
    public func answer(_ object: StoredObject, sent body: [String: JSONValue], caller: Caller) async throws -> StoredObject {
        if let answered = try await answering(object, caller: caller) { return answered }
        var sent = object
        sent.fields = Self.literals(of: body)
        return sent
    }

    /// The objects matching a query given as its REST parameters in JSON (`where` as an object,
    /// `order`, `limit`, ...: `ObjectQuery(className:query:)`), inside the find hooks. The JSON
    /// is what both hooks see: structured from the client's text once, never printed and
    /// parsed again.
    public func find(
        _ className: String, query parameters: [String: JSONValue], withCount: Bool = false, caller: Caller
    ) async throws -> (query: ObjectQuery, objects: [StoredObject], count: Int?) {
        try await aroundFindHooks(className, .parameters(parameters), counting: withCount, caller: caller) { query in
            try await read(query, withCount: withCount, caller: caller)
        }
    }

    /// `find(_:query:withCount:caller:)` with the parameters as the text of a URL.
    public func find(
        _ className: String, parameters: [String: String], withCount: Bool = false, caller: Caller
    ) async throws -> (query: ObjectQuery, objects: [StoredObject], count: Int?) {
        try await find(className, query: ObjectQuery.json(parameters), withCount: withCount, caller: caller)
    }

    /// One page of a walk over a class (master key only) in `order`, after the page `cursor`
    /// ended, with the cursor of the next page, nil when this page is the last.
    public func scan(
        _ className: String, predicate: QueryPredicate?, order: ScanOrder = .objectId, cursor: String?, limit: Int,
        caller: Caller
    ) async throws -> (objects: [StoredObject], cursor: String?) {
        try checkClassName(className)
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Scanning a class needs the master key.") }
        guard (1...ObjectQuery.maxLimit).contains(limit) else {
            throw DataAPIError(.invalidQuery, "limit must be an integer from 1 to \(ObjectQuery.maxLimit).")
        }
        let position = try cursor.map { (text) throws(DataAPIError) in try order.position(text) }
        let storage = storage(for: caller)
        // The classes holding deploys are no master key's to walk (nor to name in a subquery).
        let access = try await access(for: caller)
        try access.checkNotInternal(className)
        let predicate = try await access.authorized(condition: predicate, of: className)
        guard try await storage.classExists(className) else { throw Self.classNotFound }
        let objects: [StoredObject]
        if order == .objectId {
            objects = try await storage.scan(className, predicate: predicate, after: position?.objectId, limit: limit)
        } else {
            objects = try await scanPage(
                className, predicate: predicate, order: order, after: position, limit: limit, in: storage, access: access)
        }
        // A full page may have a next one; limit is at least 1, so a full page has a last object.
        let next = objects.count == limit ? try order.cursor(after: objects[limit - 1]) : nil
        return (objects, next)
    }

    /// A page in the order of a `scan_key` other than objectId: a query sorted by the key and
    /// objectId, from where the last page ended. The key's values compare as its recorded type
    /// sorts, so only keys of a type with an order (Number, String, Date, the built-in dates)
    /// can be scanned by.
    private func scanPage(
        _ className: String, predicate: QueryPredicate?, order: ScanOrder, after position: ScanOrder.Position?,
        limit: Int, in storage: any StorageEngine, access: Access
    ) async throws -> [StoredObject] {
        try await access.checkQueryable(order.key, of: className)
        if !["createdAt", "updatedAt"].contains(order.key) {
            let type = try await storage.fieldTypes(of: className)[order.key]
            guard order.key != "ACL", type == nil || [.number, .string, .date].contains(type) else {
                throw DataAPIError(.invalidQuery, "scan_key must be objectId, createdAt, updatedAt or a Number, String or Date field.")
            }
        }
        var query = ObjectQuery(className: className)
        let parts = [predicate, position.map(order.after)].compactMap { $0 }
        query.predicate = parts.count > 1 ? .and(parts) : parts.first
        query.order = order.sortKeys
        query.limit = limit
        query.fromMaster = true
        return try await storage.find(query, charging: AnswerBudget.forAnswer(answerLimits))
    }

    /// The class's default ACL with `creator` made the user's id.
    private func defaultACL(for className: String, creator: String?) -> JSONValue? {
        guard case .object(var acl)? = defaultACLs[className] else { return nil }
        if let rights = acl.removeValue(forKey: "creator"), let creator { acl[creator] = rights }
        return .object(acl)
    }

    /// A hook's object as a write body: the keys the server sets itself are dropped.
    static func writable(_ object: [String: JSONValue]) -> [String: JSONValue] {
        object.filter { key, _ in !Self.serverKeys.contains(key) }
    }

    private static let serverKeys: Set<String> = [
        "objectId", "createdAt", "updatedAt", "_updatedKeys", "updatedKeys", "__before", "__after", "__ignore_hooks",
    ]

    /// Includes must be key paths. One through a field that holds no Pointer or File is
    /// ignored, as LeanCloud ignores it (the JS SDK's suite includes a Number field).
    /// Refuses include paths that aren't key paths, or past the answer limits' count and depth
    /// (102), before anything is fetched.
    func checkIncludes(_ paths: [String], of className: String) async throws {
        guard paths.count <= answerLimits.maxIncludePaths else {
            throw DataAPIError(.invalidQuery, "Too many include paths: at most \(answerLimits.maxIncludePaths).")
        }
        for path in paths {
            // Counted before the path is validated: a path of 70 000 segments is refused by its length.
            guard path.utf8.count(where: { $0 == UInt8(ascii: ".") }) < answerLimits.maxIncludeDepth else {
                throw DataAPIError(.invalidQuery, "An include path follows at most \(answerLimits.maxIncludeDepth) pointers.")
            }
            guard Names.isValidKeyPath(path) else { throw DataAPIError(.invalidQuery, "Invalid include '\(path)'.") }
        }
    }

    static let classNotFound = DataAPIError(.objectNotFound, "Class or object doesn't exists.")

    func checkClassName(_ className: String) throws(DataAPIError) {
        guard Names.isValidClassName(className) else {
            throw DataAPIError(
                .invalidClassName,
                "Invalid class name '\(className)': use letters, digits and _, starting with a letter.")
        }
    }

    func checkWritable(_ className: String, id: String?, caller: Caller) throws(DataAPIError) {
        try checkClassName(className)
        guard className.hasPrefix("_"), !caller.isMaster else { return }
        // A client signs a user up, and changes or deletes only its own user.
        if className == "_User" {
            if id == nil || id == caller.userId { return }
            throw DataAPIError(.userNeedsSession, "The user cannot be altered by a client without the session.")
        }
        // A signed-in user creates roles (anyone, where the operator opened it as LeanCloud's
        // default class permissions do); changing one is up to the role's ACL
        // (checkWriteAccess), as for any object.
        if className == "_Role" {
            if id != nil || caller.userId != nil || anyoneCreatesRoles { return }
            throw DataAPIError(.operationForbidden, "Creating a role needs a signed-in user or the master key.")
        }
        // Other system classes have their own APIs (files, installations); only the master key
        // writes them directly.
        throw DataAPIError(.operationForbidden, "Objects of \(className) can't be written through /classes.")
    }
}
