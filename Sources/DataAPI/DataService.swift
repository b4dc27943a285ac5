/// The one entry point for reading and writing objects, whatever path the request took (REST,
/// batch, and later functions and hooks): it checks names and access, parses the client's
/// changes, and resolves includes and key selections.
public struct DataService: Sendable {
    /// The engine that stores objects.
    public let storage: any StorageEngine
    private let normalizer: ValueNormalizer

    /// Creates a service over a storage engine; `knownClass` answers pointer-target checks.
    public init(storage: any StorageEngine, knownClass: @escaping @Sendable (String) -> Bool) {
        self.storage = storage
        self.normalizer = ValueNormalizer(classExists: knownClass)
    }

    /// Creates a service over the embedded SQLite engine.
    public init(sqlite: SQLiteStorage) {
        self.init(storage: sqlite, knownClass: { sqlite.isKnownClass($0) })
    }

    /// Creates an object from a request body.
    public func create(_ className: String, body: [String: JSONValue], caller: Caller) async throws -> StoredObject {
        try checkWritable(className, caller: caller)
        let changes = try ObjectChanges(body: body, normalizer: normalizer)
        return try await storage.create(className, changes: changes)
    }

    /// Updates an object from a request body, if it matches `condition`.
    public func update(
        _ className: String, id: String, body: [String: JSONValue], condition: QueryPredicate? = nil, caller: Caller
    ) async throws -> (object: StoredObject, changedKeys: [String]) {
        try checkWritable(className, caller: caller)
        let changes = try ObjectChanges(body: body, normalizer: normalizer)
        let object = try await storage.update(className, id: id, changes: changes, condition: condition)
        return (object, changes.fields.keys.sorted())
    }

    /// Deletes an object, if it matches `condition`.
    public func delete(_ className: String, id: String, condition: QueryPredicate? = nil, caller: Caller) async throws {
        try checkWritable(className, caller: caller)
        try await storage.delete(className, id: id, condition: condition)
    }

    /// The object with this id, with pointers in `include` resolved; nil when it doesn't exist.
    ///
    /// - Throws: 101 when the class itself doesn't exist.
    public func fetch(
        _ className: String, id: String, include: [String] = [], caller: Caller
    ) async throws -> StoredObject? {
        try checkClassName(className)
        try await checkIncludes(include, of: className)
        guard let object = try await storage.fetch(className, id: id) else {
            guard try await storage.classExists(className) else { throw Self.classNotFound }
            return nil
        }
        return try await IncludeResolver(storage: storage).resolve([object], paths: include)[0]
    }

    /// The objects matching a query, with includes resolved, and their count when asked.
    public func find(_ query: ObjectQuery, withCount: Bool = false, caller: Caller) async throws -> (
        objects: [StoredObject], count: Int?
    ) {
        try checkClassName(query.className)
        guard try await storage.classExists(query.className) else { throw Self.classNotFound }
        try await checkIncludes(query.include, of: query.className)
        let objects = query.limit == 0 ? [] : try await storage.find(query)
        let count = withCount ? try await storage.count(query) : nil
        let resolved = try await IncludeResolver(storage: storage).resolve(objects, paths: query.include)
        return (resolved, count)
    }

    /// One page of a walk over a class in objectId order (master key only), with the cursor of
    /// the next page, nil when this page is the last.
    public func scan(
        _ className: String, predicate: QueryPredicate?, cursor: String?, limit: Int, caller: Caller
    ) async throws -> (objects: [StoredObject], cursor: String?) {
        try checkClassName(className)
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Scanning a class needs the master key.") }
        guard (1...ObjectQuery.maxLimit).contains(limit) else {
            throw DataAPIError(.invalidQuery, "limit must be an integer from 1 to \(ObjectQuery.maxLimit).")
        }
        guard try await storage.classExists(className) else { throw Self.classNotFound }
        let objects = try await storage.scan(className, predicate: predicate, after: cursor, limit: limit)
        return (objects, objects.count == limit ? objects.last?.objectId : nil)
    }

    /// Includes must name Pointer fields (or arrays, which may hold pointers): including a
    /// string is a client mistake worth a clear error, not a silent no-op.
    private func checkIncludes(_ paths: [String], of className: String) async throws {
        if paths.isEmpty { return }
        let types = try await storage.fieldTypes(of: className)
        for path in paths {
            let head = String(path.split(separator: ".").first ?? "")
            guard Names.isValidKeyPath(path) else { throw DataAPIError(.invalidQuery, "Invalid include '\(path)'.") }
            if let type = types[head], type != .pointer, type != .array {
                throw DataAPIError(.invalidQuery, "Can't include \(head): it is a \(type.rawValue), not a Pointer.")
            }
        }
    }

    private static let classNotFound = DataAPIError(.objectNotFound, "Class or object doesn't exists.")

    private func checkClassName(_ className: String) throws(DataAPIError) {
        guard Names.isValidClassName(className) else {
            throw DataAPIError(
                .invalidClassName,
                "Invalid class name '\(className)': use letters, digits and _, starting with a letter.")
        }
    }

    private func checkWritable(_ className: String, caller: Caller) throws(DataAPIError) {
        try checkClassName(className)
        // System classes have their own APIs (signup, files, roles); only the master key writes
        // them directly.
        if className.hasPrefix("_") && !caller.isMaster {
            throw DataAPIError(.operationForbidden, "Objects of \(className) can't be written through /classes.")
        }
    }
}
