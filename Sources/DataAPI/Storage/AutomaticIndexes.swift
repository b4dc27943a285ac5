import Synchronization

/// Which of the indexes a query could use a host creates, and when: the part of automatic
/// indexing both engines share (they only differ in the SQL).
///
/// A client may add fields to a class and query on each of them, so creating an index on every
/// field a query touches lets anyone with the app key put hundreds of indexes on a shared class,
/// and every insert there then pays for all of them (500 indexes took inserts from 1.5 ms to
/// 10.4 ms). So an index is created only for a field queried `threshold` times (counted per host,
/// in memory: it is a measure of use, not a security boundary), or at once for the master key; and
/// a class never gets more than `perClass` of them, counted in the database inside the write that
/// creates one, so several hosts together stay under it too.
final class AutomaticIndexes: Sendable {
    /// At most this many automatic indexes per class. Each costs every insert ~0.02 ms (the
    /// measurement above), so 16 add ~0.3 ms to a 1.5 ms insert, while real apps filter and sort
    /// on a handful of fields per class; MongoDB, under LeanCloud, caps a collection at 64.
    static let perClass = 16

    /// A client's queries on a field before it gets an index: an index pays off for queries that
    /// repeat, and 20 scans is the most an unindexed field costs before it is indexed. An attacker
    /// needs 20 queries per index, and still gets no more than `perClass`.
    static let threshold = 20

    private struct State {
        /// Full index names known to exist, so the common path takes no write.
        var ensured: Set<String> = []
        /// Queries seen per full index name not created yet.
        var uses: [String: Int] = [:]
        /// Tables found at the cap: nothing more is tried on them until the host restarts (an
        /// operator who drops an index makes room for the next restart's choices).
        var full: Set<String> = []
    }

    private let state = Mutex(State())

    /// The full name of an automatic index: the table's name, then `_` and `suffix`.
    static func name(table: String, suffix: String) -> String { "\(table)_\(suffix)" }

    /// Counts a query that would use the indexes `names` (full names) of `table`, and returns
    /// those to create now: missing ones queried often enough, or every missing one when the
    /// master key asked.
    func due(table: String, names: [String], byMaster: Bool) -> [String] {
        state.withLock { state in
            if state.full.contains(table) { return [] }
            var due: [String] = []
            for name in names where !state.ensured.contains(name) {
                let uses = (state.uses[name] ?? 0) + 1
                state.uses[name] = uses
                if byMaster || uses >= Self.threshold { due.append(name) }
            }
            return due
        }
    }

    /// Records what the write that created indexes found: the automatic indexes `table` has now,
    /// and whether it reached the cap before creating all it was asked to.
    func settle(table: String, present: Set<String>, full: Bool) {
        state.withLock { state in
            for name in present {
                state.ensured.insert(name)
                state.uses[name] = nil
            }
            if full { state.full.insert(table) }
        }
    }

    /// Forgets what is known of `table`'s indexes (after one was dropped here).
    func forget(table: String) {
        state.withLock { state in
            state.ensured = state.ensured.filter { !ClassIndex.isAutomatic($0, table: table) }
            state.full.remove(table)
        }
    }

    /// Which of `wanted` (full names, in order) to create on a table whose automatic indexes are
    /// `present`, within the cap; and whether the cap stopped any.
    static func plan(_ wanted: [String], present: Set<String>) -> (create: [String], full: Bool) {
        var count = present.count
        var create: [String] = []
        for name in wanted where !present.contains(name) && !create.contains(name) {
            guard count < perClass else { return (create, true) }
            create.append(name)
            count += 1
        }
        return (create, false)
    }
}
