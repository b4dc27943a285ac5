import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// Issue 30 (answer limits): the engines charge each row to the answer's budget as they read it
/// and stop at the first row it refuses, so a page of large objects is refused before it is all
/// in memory. Run on SQLite, and on PostgreSQL when `FUNCTIONHOST_TEST_DATABASE_URL` is set.
@Suite struct EngineReadBudgetTests {
    /// Ten objects of about 10 KB each; each row costs its document and 100 bytes for its id
    /// and dates, so 35 000 bytes hold three rows and refuse the fourth.
    static let rows = 10
    static let budgetBytes = 35_000

    static func seed(_ storage: any StorageEngine) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<rows {
            let object = try await storage.create(
                "Big", changes: sets(["n": .int(Int64(index)), "b": .string(String(repeating: "A", count: 10_000))]))
            ids.append(object.objectId)
        }
        return ids
    }

    static func budget(_ bytes: Int) -> AnswerBudget {
        var limits = AnswerLimits()
        limits.maxBytes = bytes
        return AnswerBudget(limits)
    }

    /// Runs `body` on a fresh SQLite engine, then on a fresh PostgreSQL schema when one is set.
    static func onEachEngine(_ body: (any StorageEngine) async throws -> Void) async throws {
        let sqlite = try SQLiteTestDatabase()
        try await body(sqlite.storage)
        if TestDatabase.server != nil {
            try await StorageEngineTests.withPostgres { try await body($0) }
        }
    }

    static func tooLarge(_ error: any Error) -> Bool {
        guard let error = error as? DataAPIError else { return false }
        return error.code == .invalidQuery && error.message.hasPrefix("The answer is too large")
    }

    @Test func findStopsReadingAtTheFirstRowTheBudgetRefuses() async throws {
        try await Self.onEachEngine { storage in
            _ = try await Self.seed(storage)
            let query = ObjectQuery(className: "Big", order: [SortKey(key: "n", descending: false)], limit: 1000)
            let budget = Self.budget(Self.budgetBytes)
            await #expect(performing: { _ = try await storage.find(query, charging: budget) }, throws: { Self.tooLarge($0) })
            // Three rows were read and kept; the fourth was refused and the statement left there.
            #expect(budget.rowsRead.objects == 3, "\(budget.rowsRead)")
            #expect(budget.rowsRead.bytes <= Self.budgetBytes)
            // The same budget counts every row of a page it can hold.
            let roomy = Self.budget(1_000_000)
            let all = try await storage.find(query, charging: roomy)
            #expect(all.count == Self.rows)
            #expect(roomy.rowsRead.objects == Self.rows)
            #expect(roomy.rowsRead.bytes > Self.rows * 10_000)
        }
    }

    @Test func fetchingManyStopsReadingAtTheFirstRowTheBudgetRefuses() async throws {
        try await Self.onEachEngine { storage in
            let ids = try await Self.seed(storage)
            let budget = Self.budget(Self.budgetBytes)
            await #expect(performing: { _ = try await storage.fetch("Big", ids: ids, charging: budget) }, throws: { Self.tooLarge($0) })
            #expect(budget.rowsRead.objects == 3, "\(budget.rowsRead)")
            // Without a budget (the server's own lookups) every row is read.
            #expect(try await storage.fetch("Big", ids: ids).count == Self.rows)
        }
    }

    /// A read run again after a lost connection gives back what its failed attempt was charged,
    /// so the same rows aren't counted twice against the budget.
    @Test func aRefundGivesBackWhatAFailedAttemptCharged() throws {
        let budget = Self.budget(35_000)
        for _ in 0..<3 { try budget.chargeRow(documentBytes: 10_000) }
        #expect(throws: DataAPIError.self) { try budget.chargeRow(documentBytes: 10_000) }
        budget.refund(AnswerWeight.row(documentBytes: 10_000) + .row(documentBytes: 10_000))
        #expect(budget.rowsRead == .row(documentBytes: 10_000))
        for _ in 0..<2 { try budget.chargeRow(documentBytes: 10_000) }
        #expect(budget.rowsRead.objects == 3)
    }

    @Test func theDefaultAnswerBudgetIsSixteenMegabytes() {
        #expect(AnswerLimits().maxBytes == 16 * 1024 * 1024)
    }
}
