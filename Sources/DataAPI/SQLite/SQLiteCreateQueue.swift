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
/// waiting, a create is written at once, by its own task, as it would be alone.
final class SQLiteCreateQueue: Sendable {
    /// What a committed create made: the object, the field types it recorded, its class's table.
    typealias Created = (object: StoredObject, newFields: [String: FieldType], table: String)
    /// One create: inserts itself in the writer's transaction.
    typealias Insert = @Sendable (Database) throws -> Created

    /// The most creates one transaction holds: bounds how long one commit takes and the
    /// statement budget its creates share.
    static let maxGroup = 64

    private struct Waiting: Sendable {
        let insert: Insert
        let continuation: CheckedContinuation<Created, any Error>
    }

    private struct State: Sendable {
        var waiting: [Waiting] = []
        /// Whether a task is writing a group now: the next creates wait for it.
        var writing = false
    }

    private let state = Mutex(State())

    /// Runs `insert` in a transaction, alone or with the creates waiting; answers once that
    /// transaction committed.
    ///
    /// - Parameter commit: writes a group (the storage's `write`), each insert's outcome its own.
    func create(_ insert: @escaping Insert, commit: @escaping @Sendable ([Insert]) async throws -> [Result<Created, any Error>])
        async throws -> Created
    {
        let writesNow = state.withLock { state in
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        guard writesNow else {
            return try await withCheckedThrowingContinuation { continuation in
                // The writer may have finished since: then this create starts the next group.
                let starts = state.withLock { state in
                    state.waiting.append(Waiting(insert: insert, continuation: continuation))
                    guard !state.writing else { return false }
                    state.writing = true
                    return true
                }
                if starts { Task { await self.writeWaiting(commit: commit) } }
            }
        }
        // This task writes its own create, with whatever waits already.
        let others = take()
        let results = await write([insert] + others.map(\.insert), commit: commit)
        for (waiting, result) in zip(others, results.dropFirst()) { waiting.continuation.resume(with: result) }
        if state.withLock({ state in
            if state.waiting.isEmpty { state.writing = false }
            return state.writing
        }) {
            // Creates arrived meanwhile: another task writes them, and this one answers now.
            Task { await self.writeWaiting(commit: commit) }
        }
        return try results[0].get()
    }

    /// Writes groups of waiting creates until none waits.
    private func writeWaiting(commit: @escaping @Sendable ([Insert]) async throws -> [Result<Created, any Error>]) async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                guard !state.waiting.isEmpty else {
                    state.writing = false
                    return []
                }
                let group = Array(state.waiting.prefix(Self.maxGroup))
                state.waiting.removeFirst(group.count)
                return group
            }
            guard !group.isEmpty else { return }
            let results = await write(group.map(\.insert), commit: commit)
            for (waiting, result) in zip(group, results) { waiting.continuation.resume(with: result) }
        }
    }

    /// Up to a group's room of waiting creates, besides the writer's own.
    private func take() -> [Waiting] {
        state.withLock { state in
            let group = Array(state.waiting.prefix(Self.maxGroup - 1))
            state.waiting.removeFirst(group.count)
            return group
        }
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
