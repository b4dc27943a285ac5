import Dispatch
import Foundation
import GRDB
import JSON
import Testing

@testable import DataAPI

/// SQLite reads run off Swift's cooperative threads, and every statement within its budget.
@Suite struct StatementBudgetTests {
    /// Reads held inside SQLite, one more than Swift has cooperative threads, leave those
    /// threads free: this test's own task goes on and another read is served. (Run inline on
    /// the caller's thread, as reads were, the held reads took every cooperative thread and
    /// nothing else ran until they ended.) GRDB keeps five reader connections, so the proof
    /// holds on machines of up to three cores (four held reads against at most three threads);
    /// on more it would prove nothing, so it doesn't run there. A regression hangs: the time
    /// limit ends it.
    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount <= 3), .timeLimit(.minutes(1)))
    func heldReadsLeaveTheCooperativeThreadsFree() async throws {
        let database = try SQLiteTestDatabase()
        let storage = database.storage
        let held = min(ProcessInfo.processInfo.activeProcessorCount + 1, 4)
        let gate = DispatchSemaphore(value: 0)
        let (started, arrival) = AsyncStream.makeStream(of: Void.self)
        let readers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<held {
                    group.addTask {
                        try await storage.read { _ in
                            arrival.yield()
                            gate.wait()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var count = 0
        for await _ in started {
            count += 1
            if count == held { break }
        }
        // Every held read is inside SQLite; this task still runs, and so does another read.
        #expect(try await storage.classExists("Anything") == false)
        for _ in 0..<held { gate.signal() }
        try await readers.value
    }

    /// A statement past its instruction budget is stopped with 124; the connection serves the
    /// next one.
    @Test func aReadPastItsBudgetIsStopped() async throws {
        let path = SQLiteTestDatabase.makePath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let storage = try SQLiteStorage(path: path, budget: StatementBudget(sqliteInstructions: 50_000))
        do {
            _ = try await storage.read { db in
                // A recursive count to a million: far more than 50 000 instructions.
                try Int.fetchOne(db, sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT count(*) FROM c")
            }
            Issue.record("the read was not stopped")
        } catch let error as DataAPIError {
            #expect(error.code == .requestTimeout)
        }
        #expect(try await storage.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }
}
