import DataAPI

/// A storage engine that times each operation of the engine under it into the host's metrics:
/// the storage latency behind every request, whichever engine it is.
final class MeasuredStorage: StorageEngine {
    let base: any StorageEngine
    let metrics: HostMetrics

    init(_ base: any StorageEngine, metrics: HostMetrics) {
        self.base = base
        self.metrics = metrics
    }

    /// Runs `body`, recording its duration under `operation`.
    private func measure<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        do {
            let value = try await body()
            metrics.recordStorage(operation: operation, failed: false, duration: start.duration(to: .now))
            return value
        } catch {
            metrics.recordStorage(operation: operation, failed: true, duration: start.duration(to: .now))
            throw error
        }
    }

    func classExists(_ className: String) async throws -> Bool {
        try await base.classExists(className)
    }

    func isKnownClass(_ className: String) -> Bool {
        base.isKnownClass(className)
    }

    func fieldTypes(of className: String) async throws -> [String: FieldType] {
        try await base.fieldTypes(of: className)
    }

    func create(_ className: String, changes: ObjectChanges) async throws -> StoredObject {
        try await measure("create") { try await base.create(className, changes: changes) }
    }

    func update(
        _ className: String, id: String, changes: ObjectChanges, condition: QueryPredicate?, check: RowCheck?
    ) async throws -> StoredObject {
        try await measure("update") {
            try await base.update(className, id: id, changes: changes, condition: condition, check: check)
        }
    }

    func delete(_ className: String, id: String, condition: QueryPredicate?, check: RowCheck?) async throws {
        try await measure("delete") { try await base.delete(className, id: id, condition: condition, check: check) }
    }

    func delete(_ className: String, ids: [String], condition: QueryPredicate?) async throws -> [String] {
        try await measure("delete_many") { try await base.delete(className, ids: ids, condition: condition) }
    }

    func write(_ writes: [LockedWrite], lockedBy key: String) async throws -> [[StoredObject]] {
        try await measure("write_locked") { try await base.write(writes, lockedBy: key) }
    }

    func fetch(_ className: String, id: String) async throws -> StoredObject? {
        try await measure("fetch") { try await base.fetch(className, id: id) }
    }

    func fetch(_ className: String, ids: [String], charging budget: AnswerBudget?) async throws -> [StoredObject] {
        try await measure("fetch_many") { try await base.fetch(className, ids: ids, charging: budget) }
    }

    func find(_ query: ObjectQuery, charging budget: AnswerBudget?) async throws -> [StoredObject] {
        try await measure("find") { try await base.find(query, charging: budget) }
    }

    func count(_ query: ObjectQuery) async throws -> Int {
        try await measure("count") { try await base.count(query) }
    }

    func scan(_ className: String, predicate: QueryPredicate?, after cursor: String?, limit: Int) async throws
        -> [StoredObject]
    {
        try await measure("scan") { try await base.scan(className, predicate: predicate, after: cursor, limit: limit) }
    }

    func insertExported(
        _ className: String, objects: [StoredObject], fieldTypes: [String: FieldType], relations: [RelationMember]
    ) async throws -> Int {
        try await measure("import") {
            try await base.insertExported(className, objects: objects, fieldTypes: fieldTypes, relations: relations)
        }
    }

    func classNames() async throws -> [String] {
        try await base.classNames()
    }

    func declareClass(_ className: String, fieldTypes: [String: FieldType]) async throws -> Bool {
        try await measure("declare") { try await base.declareClass(className, fieldTypes: fieldTypes) }
    }

    func searchSettings() async throws -> [SearchSettings] {
        try await base.searchSettings()
    }

    func setSearch(_ className: String, to settings: SearchSettings?) async throws {
        try await measure("search_index") { try await base.setSearch(className, to: settings) }
    }

    func search(_ plan: SearchPlan) async throws -> SearchMatches {
        try await measure("search") { try await base.search(plan) }
    }
}
