import Foundation
import JSON
import Synchronization
import TestSupport

@testable import DataAPI

/// A storage engine that counts what the data service asks of the one it wraps: reads of one
/// object by id outside a write (`fetch`), queries by class (`find`), and writes. What a write
/// reads inside its own transaction is the engine's, and not counted as a `fetch`.
final class CountingStorage: StorageEngine {
    let base: any StorageEngine
    private let counts = Mutex<[String: Int]>([:])

    init(_ base: any StorageEngine) {
        self.base = base
    }

    /// How many times `key` (`fetch:Todo`, `find:_Role`, `update:Todo`, ...) was asked.
    func count(_ key: String) -> Int { counts.withLock { $0[key] ?? 0 } }

    /// Forgets every count: what follows is counted from zero.
    func reset() { counts.withLock { $0 = [:] } }

    private func bump(_ key: String) { counts.withLock { $0[key, default: 0] += 1 } }

    func classExists(_ className: String) async throws -> Bool { try await base.classExists(className) }
    func isKnownClass(_ className: String) -> Bool { base.isKnownClass(className) }
    func fieldTypes(of className: String) async throws -> [String: FieldType] { try await base.fieldTypes(of: className) }

    func create(_ className: String, changes: ObjectChanges) async throws -> StoredObject {
        bump("create:\(className)")
        return try await base.create(className, changes: changes)
    }

    func update(
        _ className: String, id: String, changes: ObjectChanges, condition: QueryPredicate?, check: RowCheck?
    ) async throws -> StoredObject {
        bump("update:\(className)")
        return try await base.update(className, id: id, changes: changes, condition: condition, check: check)
    }

    func delete(_ className: String, id: String, condition: QueryPredicate?, check: RowCheck?) async throws {
        bump("delete:\(className)")
        try await base.delete(className, id: id, condition: condition, check: check)
    }

    func delete(_ className: String, ids: [String], condition: QueryPredicate?) async throws -> [String] {
        bump("delete:\(className)")
        return try await base.delete(className, ids: ids, condition: condition)
    }

    func write(_ writes: [LockedWrite], lockedBy key: String) async throws -> [[StoredObject]] {
        bump("write_locked")
        return try await base.write(writes, lockedBy: key)
    }

    func fetch(_ className: String, id: String) async throws -> StoredObject? {
        bump("fetch:\(className)")
        return try await base.fetch(className, id: id)
    }

    func fetch(_ className: String, ids: [String], charging budget: AnswerBudget?) async throws -> [StoredObject] {
        bump("fetch:\(className)")
        return try await base.fetch(className, ids: ids, charging: budget)
    }

    func find(_ query: ObjectQuery, charging budget: AnswerBudget?) async throws -> [StoredObject] {
        bump("find:\(query.className)")
        return try await base.find(query, charging: budget)
    }

    func count(_ query: ObjectQuery) async throws -> Int {
        bump("count:\(query.className)")
        return try await base.count(query)
    }

    func scan(_ className: String, predicate: QueryPredicate?, after cursor: String?, limit: Int) async throws
        -> [StoredObject]
    {
        try await base.scan(className, predicate: predicate, after: cursor, limit: limit)
    }

    func insertExported(
        _ className: String, objects: [StoredObject], fieldTypes: [String: FieldType], relations: [RelationMember]
    ) async throws -> Int {
        try await base.insertExported(className, objects: objects, fieldTypes: fieldTypes, relations: relations)
    }

    func classNames() async throws -> [String] { try await base.classNames() }

    func declareClass(_ className: String, fieldTypes: [String: FieldType]) async throws -> Bool {
        try await base.declareClass(className, fieldTypes: fieldTypes)
    }

    func searchSettings() async throws -> [SearchSettings] {
        try await base.searchSettings()
    }

    func setSearch(_ className: String, to settings: SearchSettings?) async throws {
        try await base.setSearch(className, to: settings)
    }

    func search(_ plan: SearchPlan) async throws -> SearchMatches {
        try await base.search(plan)
    }

    /// Runs `body` with a counting engine over SQLite, or over a schema of its own on the
    /// PostgreSQL server the tests are given (`FUNCTIONHOST_TEST_DATABASE_URL`).
    static func withEngine(_ body: (CountingStorage) async throws -> Void) async throws {
        guard let server = TestDatabase.server else {
            let database = try SQLiteTestDatabase()
            try await body(CountingStorage(database.storage))
            return
        }
        let schema = "d_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let storage = try await PostgresStorage(location: server.inSchema(schema))
        do {
            try await body(CountingStorage(storage))
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }
}

/// Hooks that count how many times an operation reads its environment's hook set (what takes
/// the environments' lock in the host) and how many times each hook runs. A `beforeSave`,
/// `beforeUpdate` or `beforeFind` sets what `change` gives; the others hand the event back.
final class CountingHooks: WriteHooks {
    let registered: Set<String>
    let change: @Sendable (HookKind, inout ObjectEvent) -> Void
    private let snapshots = Mutex(0)
    private let runs = Mutex<[HookKind: Int]>([:])

    /// Hooks of `kinds` for `className`.
    init(_ kinds: [HookKind], of className: String, change: @escaping @Sendable (HookKind, inout ObjectEvent) -> Void = { _, _ in }) {
        registered = Set(kinds.map { "\($0.rawValue) \(className)" })
        self.change = change
    }

    /// How many hook sets were taken.
    var snapshotCount: Int { snapshots.withLock { $0 } }
    /// How many times a hook of `kind` ran.
    func ran(_ kind: HookKind) -> Int { runs.withLock { $0[kind] ?? 0 } }

    func reset() {
        snapshots.withLock { $0 = 0 }
        runs.withLock { $0 = [:] }
    }

    func snapshot(in environment: EnvironmentName) -> any HookSnapshot {
        snapshots.withLock { $0 += 1 }
        return Snapshot(hooks: self)
    }

    fileprivate func run(_ kind: HookKind, _ event: ObjectEvent) -> ObjectEvent {
        runs.withLock { $0[kind, default: 0] += 1 }
        var event = event
        change(kind, &event)
        return event
    }

    private struct Snapshot: HookSnapshot {
        let hooks: CountingHooks
        func contains(_ kind: HookKind, _ className: String) -> Bool {
            hooks.registered.contains("\(kind.rawValue) \(className)")
        }
        func runBefore(_ kind: HookKind, _ event: ObjectEvent) async throws -> ObjectEvent { hooks.run(kind, event) }
        func runAfter(_ kind: HookKind, _ event: ObjectEvent) async { _ = hooks.run(kind, event) }
        func runAfterAnswering(_ kind: HookKind, _ event: ObjectEvent) async throws { _ = hooks.run(kind, event) }
    }
}
