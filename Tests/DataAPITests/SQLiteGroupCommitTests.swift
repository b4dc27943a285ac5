import JSON
import Synchronization
import Testing

@testable import DataAPI

/// Creates waiting for SQLite's writer are committed in groups (`SQLiteCreateQueue`): each is
/// answered after the commit holding it, and one that fails fails alone.
@Suite struct SQLiteGroupCommitTests {
    /// A gate the first group's commit waits at, so that the creates sent meanwhile wait too.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// What the fake commit saw, and what the creates were told.
    final class Tally: Sendable {
        let groups = Mutex<[Int]>([])
        let committed = Mutex(0)
        let outcomes = Mutex<[Bool]>([])
    }

    @Test func createsThatWaitAreCommittedAsOneGroupAndAnsweredAfterIt() async throws {
        let queue = SQLiteCreateQueue()
        let gate = Gate()
        let tally = Tally()
        let commit: @Sendable ([SQLiteCreateQueue.Insert]) async throws -> [Result<SQLiteCreateQueue.Created, any Error>] = {
            inserts in
            let first = tally.groups.withLock { groups in
                groups.append(inserts.count)
                return groups.count == 1
            }
            if first { await gate.wait() }
            tally.committed.withLock { $0 += inserts.count }
            // The group's third create fails; its neighbours don't.
            return inserts.indices.map { index in
                inserts.count > 1 && index == 2
                    ? .failure(DataAPIError(.duplicateValue, "taken"))
                    : .success((StoredObject(className: "T", objectId: "o\(index)", createdAt: "", updatedAt: "", fields: [:]), [:], "t"))
            }
        }
        let insert: SQLiteCreateQueue.Insert = { _ in throw DataAPIError(.storageFailure, "not run by this commit") }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { _ = try await queue.create(insert, commit: commit) }
            // Wait until the first create is being committed, then send five more.
            while tally.groups.withLock({ $0.isEmpty }) { await Task.yield() }
            await withTaskGroup(of: Void.self) { others in
                for _ in 0..<5 {
                    others.addTask {
                        do {
                            _ = try await queue.create(insert, commit: commit)
                            #expect(tally.committed.withLock { $0 } == 6, "answered after its group committed")
                            tally.outcomes.withLock { $0.append(true) }
                        } catch {
                            tally.outcomes.withLock { $0.append(false) }
                        }
                    }
                }
                // Let the five reach the queue (they wait behind the first), then let it commit.
                for _ in 0..<200 { await Task.yield() }
                gate.open()
            }
            #expect(tally.groups.withLock { $0 } == [1, 5], "one group for the five that waited")
            #expect(tally.outcomes.withLock { $0.filter { $0 }.count } == 4, "the failing create fails alone")
            try await tasks.waitForAll()
        }
    }

    @Test func concurrentCreatesOnSQLiteEachGetTheirOwnAnswer() async throws {
        let database = try SQLiteTestDatabase()
        let storage = database.storage
        let taken = try await storage.create("Item", changes: sets(["n": 0]))
        let results = await withTaskGroup(of: (Int, Result<StoredObject, any Error>).self) { tasks in
            for n in 1...40 {
                tasks.addTask {
                    var changes = sets(["n": .int(Int64(n))])
                    // Every tenth reuses a taken id (137); the 25th writes a field of another type (111).
                    if n % 10 == 0 { changes.objectId = taken.objectId }
                    if n == 25 { changes = sets(["n": "text"]) }
                    do { return (n, .success(try await storage.create("Item", changes: changes))) } catch { return (n, .failure(error)) }
                }
            }
            var all: [Int: Result<StoredObject, any Error>] = [:]
            for await (n, result) in tasks { all[n] = result }
            return all
        }
        for (n, result) in results {
            switch result {
            case .success(let object):
                #expect(n % 10 != 0 && n != 25)
                #expect(try await storage.fetch("Item", id: object.objectId)?.fields["n"] == .int(Int64(n)))
            case .failure(let error):
                let code = (error as? DataAPIError)?.code.rawValue
                #expect(n % 10 == 0 ? code == 137 : n == 25 && code == 111, "\(n): \(error)")
            }
        }
        #expect(try await storage.count(ObjectQuery(className: "Item")) == 1 + 40 - 4 - 1)
    }
}
