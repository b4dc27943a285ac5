/// Where objects live. SQLite is the embedded engine; others (PostgreSQL) implement the same
/// contract, and the same tests run against each.
///
/// Every write is atomic: the read of the current object, the operations, the type checks and
/// the write happen in one transaction, so concurrent increments never lose an update.
package protocol StorageEngine: Sendable {
    /// Whether the class has ever been written (system classes always exist).
    func classExists(_ className: String) async throws -> Bool

    /// Whether a class is known to exist, from what the engine has cached alone (no I/O): what
    /// pointer checks use on every write.
    func isKnownClass(_ className: String) -> Bool

    /// The recorded type of each field of a class (empty for a class never written).
    func fieldTypes(of className: String) async throws -> [String: FieldType]

    /// Creates an object from `changes` and returns it.
    func create(_ className: String, changes: ObjectChanges) async throws -> StoredObject

    /// Applies `changes` to an object, only if it passes `check` and matches `condition` (else
    /// error 305). The object is read once, inside the write's transaction (locked there on
    /// PostgreSQL): `check` (the caller's rights by its ACL) sees that row, before the condition
    /// and the type checks, and the write is made from it.
    ///
    /// - Throws: 101 when there is no such object; what `check` throws.
    func update(
        _ className: String, id: String, changes: ObjectChanges, condition: QueryPredicate?, check: RowCheck?
    ) async throws -> StoredObject

    /// Deletes an object, only if it passes `check` (given the row read inside the transaction)
    /// and matches `condition` (else error 305); deleting an object that does not exist
    /// succeeds, since SDKs replay deletes.
    func delete(_ className: String, id: String, condition: QueryPredicate?, check: RowCheck?) async throws

    /// Deletes the objects of `ids` in one transaction, all or none: if one that exists doesn't
    /// match `condition`, nothing is deleted (error 305). An id with no object is skipped, as a
    /// multi-object delete skips it. Returns the ids deleted, in the order given, each once.
    /// Callers bound how many ids one call names (`DataService.maxDeleteIds`).
    func delete(_ className: String, ids: [String], condition: QueryPredicate?) async throws -> [String]

    /// Runs `writes` (creates and deletes, of any classes) as one transaction, all or none,
    /// after taking the lock `key` names: every transaction naming the same key runs after the
    /// one before it committed and sees what it wrote (an advisory lock on PostgreSQL, held to
    /// the commit; SQLite's one writer runs every write transaction so). A create whose objectId
    /// is taken fails the whole transaction (137). Answers, for each write, the objects it
    /// created or deleted (a delete skips ids with no object). Callers bound the ids.
    func write(_ writes: [LockedWrite], lockedBy key: String) async throws -> [[StoredObject]]

    /// The object with this id, if any.
    func fetch(_ className: String, id: String) async throws -> StoredObject?

    /// The objects with these ids that exist, in no particular order. Each row is charged to
    /// `budget` as it is read; when the budget refuses one, reading stops and its error is thrown.
    func fetch(_ className: String, ids: [String], charging budget: AnswerBudget?) async throws -> [StoredObject]

    /// The objects matching the query, in its order and window. Each row is charged to `budget`
    /// as it is read; when the budget refuses one, reading stops and its error is thrown.
    func find(_ query: ObjectQuery, charging budget: AnswerBudget?) async throws -> [StoredObject]

    /// How many objects match the query's condition.
    func count(_ query: ObjectQuery) async throws -> Int

    /// Up to `limit` objects of a class matching `predicate`, in objectId order, after the
    /// objectId `cursor`: a stable walk over a class of any size.
    func scan(_ className: String, predicate: QueryPredicate?, after cursor: String?, limit: Int) async throws
        -> [StoredObject]

    /// Writes objects as an export holds them (ids, dates and stored-form fields kept), without
    /// hooks, in one transaction. An object whose id the class already has is left as it is, so
    /// importing twice changes nothing. `fieldTypes` are recorded for fields the class does not
    /// know yet (the caller has checked them against the recorded ones); `relations` adds members
    /// to the class's Relation fields. Returns how many of `objects` were new.
    func insertExported(
        _ className: String, objects: [StoredObject], fieldTypes: [String: FieldType], relations: [RelationMember]
    ) async throws -> Int

    /// The names of every class that has been written, sorted.
    func classNames() async throws -> [String]

    /// Creates the class when it doesn't exist and records `fieldTypes` for fields it doesn't
    /// have, in one transaction: a class made empty (the schema API, an import's schema file)
    /// answers queries with no results rather than 101. Returns whether the class is new.
    ///
    /// - Throws: 111 when a field already holds another type; nothing is written then.
    func declareClass(_ className: String, fieldTypes: [String: FieldType]) async throws -> Bool

    /// The classes search is on for, and their indexed fields, sorted by class.
    func searchSettings() async throws -> [SearchSettings]

    /// Turns search on for a class, changes its indexed fields, or turns it off (nil). The index
    /// is built from the class's rows in the same transaction that records the settings, and
    /// from then on every write of the class (each path: create, update, delete, the multi-object
    /// delete, an import) keeps it current inside its own transaction, so it never disagrees
    /// with the data, even after a kill -9.
    func setSearch(_ className: String, to settings: SearchSettings?) async throws

    /// The ids of the objects matching a search plan, in its order (at most `plan.window`), and
    /// how many match in all. Objects `plan.restriction` excludes are neither.
    ///
    /// - Throws: 101 when search isn't on for the class.
    func search(_ plan: SearchPlan) async throws -> SearchMatches
}

/// One write of a locked transaction (`StorageEngine.write(_:lockedBy:)`).
package enum LockedWrite: Sendable {
    /// Creates an object of a class from changes (under `changes.objectId` when it names one).
    case create(String, ObjectChanges)
    /// Deletes the objects of a class with these ids that exist.
    case delete(String, [String])
}

/// What a write checks on the row it read inside its transaction before changing it (the
/// caller's rights by the object's ACL): a throw refuses the write and nothing is written.
package typealias RowCheck = @Sendable (StoredObject) throws -> Void

extension StorageEngine {
    /// `update(_:id:changes:condition:check:)` with nothing to check but the condition (the
    /// server's own writes, or a write whose row was checked before its hooks ran).
    package func update(
        _ className: String, id: String, changes: ObjectChanges, condition: QueryPredicate?
    ) async throws -> StoredObject {
        try await update(className, id: id, changes: changes, condition: condition, check: nil)
    }

    /// `delete(_:id:condition:check:)` with nothing to check but the condition.
    package func delete(_ className: String, id: String, condition: QueryPredicate?) async throws {
        try await delete(className, id: id, condition: condition, check: nil)
    }

    /// The objects with these ids that exist, read for no answer's budget (the server's own
    /// lookups, bounded by what they ask for).
    package func fetch(_ className: String, ids: [String]) async throws -> [StoredObject] {
        try await fetch(className, ids: ids, charging: nil)
    }

    /// The objects matching the query, read for no answer's budget (the server's own lookups,
    /// bounded by their limit).
    package func find(_ query: ObjectQuery) async throws -> [StoredObject] {
        try await find(query, charging: nil)
    }

    /// `ids` without repeats, in their order, in groups of at most `size`: how the engines
    /// bind the ids of a multi-object delete (a statement takes a bounded number of values).
    static func distinctGroups(_ ids: [String], size: Int = 500) -> [[String]] {
        var seen = Set<String>()
        let distinct = ids.filter { seen.insert($0).inserted }
        return stride(from: 0, to: distinct.count, by: size).map { Array(distinct[$0..<min($0 + size, distinct.count)]) }
    }

    /// `?, ?, ...` for `count` bound values.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

/// One member of a Relation field: the owner object holds the target in `field`.
package struct RelationMember: Sendable, Hashable {
    /// The Relation field of the owner's class.
    public var field: String
    /// The owner object's id.
    public var ownerId: String
    /// The related object's id.
    public var targetId: String

    /// Creates a member.
    public init(field: String, ownerId: String, targetId: String) {
        self.field = field
        self.ownerId = ownerId
        self.targetId = targetId
    }
}
