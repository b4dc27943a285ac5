/// Gives the staging environment a database of its own: every call goes to the engine of the
/// environment the current task serves, as `EnvironmentStorage.$environment` says (set by the
/// server around each request, and by the sandbox around each of its data calls).
///
/// A task-local value rather than a parameter: the choice of database is made once, where the
/// request's environment is known, and reaches every read and write the request causes —
/// hooks, functions and includes — without each of them passing it along.
public final class EnvironmentStorage: StorageEngine {
    /// The environment the current task serves (`production` unless set).
    @TaskLocal public static var environment = EnvironmentName.production

    /// The engine of production (and of everything that isn't staging).
    public let production: any StorageEngine
    /// The engine of staging.
    public let staging: any StorageEngine

    /// Creates the pair.
    public init(production: any StorageEngine, staging: any StorageEngine) {
        self.production = production
        self.staging = staging
    }

    /// The engine of the current task's environment.
    public var current: any StorageEngine { Self.environment == .staging ? staging : production }

    public func classExists(_ className: String) async throws -> Bool {
        try await current.classExists(className)
    }

    public func isKnownClass(_ className: String) -> Bool {
        current.isKnownClass(className)
    }

    public func fieldTypes(of className: String) async throws -> [String: FieldType] {
        try await current.fieldTypes(of: className)
    }

    public func create(_ className: String, changes: ObjectChanges) async throws -> StoredObject {
        try await current.create(className, changes: changes)
    }

    public func update(
        _ className: String, id: String, changes: ObjectChanges, condition: QueryPredicate?
    ) async throws -> StoredObject {
        try await current.update(className, id: id, changes: changes, condition: condition)
    }

    public func delete(_ className: String, id: String, condition: QueryPredicate?) async throws {
        try await current.delete(className, id: id, condition: condition)
    }

    public func fetch(_ className: String, id: String) async throws -> StoredObject? {
        try await current.fetch(className, id: id)
    }

    public func fetch(_ className: String, ids: [String]) async throws -> [StoredObject] {
        try await current.fetch(className, ids: ids)
    }

    public func find(_ query: ObjectQuery) async throws -> [StoredObject] {
        try await current.find(query)
    }

    public func count(_ query: ObjectQuery) async throws -> Int {
        try await current.count(query)
    }

    public func scan(_ className: String, predicate: QueryPredicate?, after cursor: String?, limit: Int) async throws
        -> [StoredObject]
    {
        try await current.scan(className, predicate: predicate, after: cursor, limit: limit)
    }

    public func insertExported(
        _ className: String, objects: [StoredObject], fieldTypes: [String: FieldType], relations: [RelationMember]
    ) async throws -> Int {
        try await current.insertExported(className, objects: objects, fieldTypes: fieldTypes, relations: relations)
    }

    public func classNames() async throws -> [String] {
        try await current.classNames()
    }
}
