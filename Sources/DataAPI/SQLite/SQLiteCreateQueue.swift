internal import GRDB
import Synchronization

/// Group commit for creates: creates that arrive while one is being written wait, and are then
/// written together in one SQLite transaction, each in a savepoint of its own.
///
/// A create is SQLite's cheapest write, so with many clients its cost is the transaction around
/// it (the commit's WAL append, the hop to the writer's queue and back), not the insert. One
/// transaction per group pays that once for all of them. What each create is told is still its
/// own: a create fails alone (its savepoint is rolled back, its neighbours commit), and every
/// create is answered only once the transaction holding it committed. With no other create
/// waiting, a create is written at once, by its own task, as it would be alone; every group is
/// written by the task of one of its creates.
final class SQLiteCreateQueue: Sendable {
    /// What a committed create made: the object, the field types it recorded, its class's table.
    typealias Created = (object: StoredObject, newFields: [String: FieldType], table: String)
    /// One create: inserts itself in the writer's transaction.
    typealias Insert = @Sendable (Database) throws -> Created

    /// The most creates one transaction holds: bounds how long one commit takes and the
    /// statement budget its creates share.
    static let maxGroup = 64

    /// What a waiting create is told: its outcome, or that it writes the next group itself.
    private enum Turn: Sendable {
        case done(Result<Created, any Error>)
        case write
    }

    private struct Waiting: Sendable {
        let insert: Insert
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct State: Sendable {
        var waiting: [Waiting] = []
        /// Whether a create's task is writing a group now: the next creates wait for it.
        var writing = false
    }

    private let state = Mutex(State())

    /// Runs `insert` in a transaction, alone or with the creates waiting; answers once that
    /// transaction committed.
    ///
    /// Every group is written by the task of one of its own creates (the first to find the
    /// writer free, then the first of those waiting): no create waits on a task that isn't
    /// waiting for a create itself.
    ///
    /// - Parameter commit: writes a group (the storage's `write`), each insert's outcome its own.
    func create(_ insert: @escaping Insert, commit: @Sendable ([Insert]) async throws -> [Result<Created, any Error>])
        async throws -> Created
    {
        let writesNow = state.withLock { state in
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        if !writesNow {
            let turn = await withCheckedContinuation { continuation in
                // The writer may have finished since: then this create writes the next group.
                let writes = state.withLock { state in
                    guard state.writing else {
                        state.writing = true
                        return true
                    }
                    state.waiting.append(Waiting(insert: insert, continuation: continuation))
                    return false
                }
                if writes { continuation.resume(returning: .write) }
            }
            if case .done(let result) = turn { return try result.get() }
        }
        // This task writes its own create, with up to a group's room of those waiting.
        let others = state.withLock { state in
            let group = Array(state.waiting.prefix(Self.maxGroup - 1))
            state.waiting.removeFirst(group.count)
            return group
        }
        let results = await write([insert] + others.map(\.insert), commit: commit)
        for (waiting, result) in zip(others, results.dropFirst()) { waiting.continuation.resume(returning: .done(result)) }
        // The first create that waited meanwhile writes the next group; none: the writer is free.
        let next = state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else {
                state.writing = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .write)
        return try results[0].get()
    }

    /// One outcome per insert: the transaction's failure is every insert's.
    private func write(
        _ inserts: [Insert], commit: @Sendable ([Insert]) async throws -> [Result<Created, any Error>]
    ) async -> [Result<Created, any Error>] {
        do {
            return try await commit(inserts)
        } catch {
            return inserts.map { _ in .failure(error) }
        }
    }
}
