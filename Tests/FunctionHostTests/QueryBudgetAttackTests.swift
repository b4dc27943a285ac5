import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import DataAPI
@testable import FunctionHost

/// The second attacker's "two queries freeze everything": every statement has a time budget
/// (124 past it, the server answering the next request), a `where` has a bounded size, and the
/// items of a batch count against the client's rate.
@Suite struct QueryBudgetAttackTests {
    /// A condition every row must check in full: an `$and` of `$ne`s all hold, so none ends it
    /// early, and no index helps an inequality.
    static let heavyWhere: String = {
        let parts = (0..<500).map { #"{"n":{"$ne":\#(-1 - $0)}}"# }.joined(separator: ",")
        return #"{"$and":[\#(parts)]}"#
    }()

    /// Creates `count` objects of `className` in one batch.
    static func seed(_ api: API, _ className: String, count: Int) async throws {
        let requests: [JSONValue] = (0..<count).map { index in
            ["method": "POST", "path": .string("/1.1/classes/\(className)"), "body": ["n": .int(Int64(index))]]
        }
        let reply = try await api.post("/1.1/batch", headers: Headers.master, ["requests": .array(requests)])
        #expect(reply.status == .ok, "\(reply)")
        #expect(reply.json?.arrayValue?.allSatisfy { $0["success"] != nil } == true, "\(reply)")
    }

    /// A 503 with exactly `{"code": 124, "error": ...}`.
    static func expectTimeout(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == .serviceUnavailable, "\(reply)", sourceLocation: sourceLocation)
        #expect(reply["code"] == 124, "\(reply)", sourceLocation: sourceLocation)
        #expect(reply["error"]?.stringValue?.isEmpty == false, "\(reply)", sourceLocation: sourceLocation)
        #expect(fieldNames(reply.json) == ["code", "error"], "\(reply)", sourceLocation: sourceLocation)
    }

    /// On SQLite the budget is counted in virtual-machine instructions here, which makes the
    /// query's cost the same on any machine: 200 rows × 500 conditions are far past 200 000,
    /// while a fetch or a plain query is far under it.
    @Test(.enabled(if: !TestDatabase.isPostgres))
    func aQueryPastItsBudgetAnswers124AndTheServerGoesOn() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, configure: { $0.statementBudget = StatementBudget(sqliteInstructions: 200_000) }
        ) { api in
            try await Self.seed(api, "Heavy", count: 200)
            for headers in [Headers.client, Headers.master] {
                Self.expectTimeout(try await api.find("Heavy", ["where": Self.heavyWhere, "limit": "1000"], headers: headers))
                Self.expectTimeout(
                    try await api.find("Heavy", ["where": Self.heavyWhere, "count": "1", "limit": "0"], headers: headers))
            }
            // Nothing is left stopped: the next requests are served.
            #expect(try await api.get("/__engine/1/ping").status == .ok)
            let few = try await api.results("Heavy", ["where": #"{"n":{"$lt":3}}"#])
            #expect(few.count == 3)
            let id = try #require(few.first?["objectId"]?.stringValue)
            #expect(try await api.fetch("Heavy", id)["n"] == few.first?["n"])
        }
    }

    /// On PostgreSQL a statement waits on a table another session has locked: without
    /// `statement_timeout` it would wait for ever, so the answer can only come from the budget.
    /// While those reads wait, as many as there are cores, the server answers other requests.
    @Test(.enabled(if: TestDatabase.isPostgres))
    func aStatementPastItsBudgetAnswers124OnPostgreSQL() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, configure: { $0.statementBudget = StatementBudget(time: .seconds(2)) }
        ) { api in
            let id = try await api.create("Locked", ["n": 1])
            let location = try #require(TestDatabase.location(for: directory))
            let locker = try await PostgresStorage(location: location)
            let table = try #require(try await locker.entry("Locked")?.table)
            let held = TableLock()
            let lock = Task {
                try await locker.transaction { connection in
                    try await connection.run(SQL("LOCK TABLE \"\(table)\" IN ACCESS EXCLUSIVE MODE"))
                    await held.hold()
                }
            }
            await held.waitUntilHeld()
            let readers = ProcessInfo.processInfo.activeProcessorCount + 1
            let answers = Task {
                try await withThrowingTaskGroup(of: Reply.self) { group in
                    for _ in 0..<readers { group.addTask { try await api.get("/1.1/classes/Locked/\(id)") } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            // The reads wait on the lock; the server still answers.
            #expect(try await api.get("/__engine/1/ping").status == .ok)
            #expect(try await api.get("/1.1/date").status == .ok)
            for reply in try await answers.value { Self.expectTimeout(reply) }
            await held.release()
            try await lock.value
            await locker.close()
            #expect(try await api.fetch("Locked", id)["n"] == 1)
        }
    }

    @Test func aWhereTooLargeIsRefusedWith102() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Big", ["n": 1])
            let many = (0..<1_001).map(String.init).joined(separator: ",")
            expectError(try await api.find("Big", ["where": #"{"n":{"$in":[\#(many)]}}"#]), code: 102, status: .badRequest)
            // Lists within the per-list bound, but past the total over the whole tree (subqueries too).
            let list = (0..<900).map(String.init).joined(separator: ",")
            let clauses = (0..<6).map { _ in #"{"n":{"$in":[\#(list)]}}"# }.joined(separator: ",")
            expectError(try await api.find("Big", ["where": #"{"$or":[\#(clauses)]}"#]), code: 102, status: .badRequest)
            let nested = #"{"p":{"$inQuery":{"className":"Big","where":{"$or":[\#(clauses)]}}}}"#
            expectError(try await api.find("Big", ["where": nested]), code: 102, status: .badRequest)
            // CQL is held to the same bounds.
            let cql = "select * from Big where n in (\(many))"
            let encoded = try #require(cql.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            expectError(try await api.get("/1.1/cloudQuery?cql=\(encoded)"), code: 102, status: .badRequest)
            // Within the bounds, the same shapes are served.
            let five = (0..<5).map { _ in #"{"n":{"$in":[\#(list)]}}"# }.joined(separator: ",")
            #expect(try await api.results("Big", ["where": #"{"$or":[\#(five)]}"#]).count == 1)
            #expect(try await api.results("Big", ["where": #"{"n":{"$in":[\#(list)]}}"#]).count == 1)
        }
    }

    /// The second review: thousands of sort keys were a 500 from SQLite's own limit.
    @Test func sortKeysAreBounded() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Big", ["n": 1])
            for count in [ObjectQuery.maxOrderKeys + 1, 5_000] {
                let order = (0..<count).map { "f\($0)" }.joined(separator: ",")
                expectError(try await api.find("Big", ["order": order]), code: 102, status: .badRequest)
            }
            let cql = "select * from Big order by " + (0...ObjectQuery.maxOrderKeys).map { "f\($0)" }.joined(separator: ",")
            let encoded = try #require(cql.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            expectError(try await api.get("/1.1/cloudQuery?cql=\(encoded)"), code: 102, status: .badRequest)
            let within = (0..<ObjectQuery.maxOrderKeys).map { "f\($0)" }.joined(separator: ",")
            #expect(try await api.results("Big", ["order": within]).count == 1)
        }
    }

    /// The second review: 500 items each spending its statement budget held a core for 40
    /// minutes. Past the batch's time budget (none here), items answer 124 without running.
    @Test func aBatchRunsItsItemsWithinItsTimeBudget() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.batchTime = .zero }) { api in
            let creates: [JSONValue] = (0..<3).map { _ in ["method": "POST", "path": "/1.1/classes/Late", "body": ["n": 1]] }
            let reply = try await api.post("/1.1/batch", ["requests": .array(creates)])
            let items = try #require(reply.json?.arrayValue, "\(reply)")
            #expect(items.count == 3 && items.allSatisfy { $0["error"]?["code"] == 124 }, "\(reply)")
            // Nothing ran: the class was never created.
            expectError(try await api.find("Late", headers: Headers.master), code: 101, status: .notFound)
        }
        try await TestServer.run(dataDirectory: directory) { api in
            let creates: [JSONValue] = (0..<3).map { _ in ["method": "POST", "path": "/1.1/classes/Late", "body": ["n": 1]] }
            let reply = try await api.post("/1.1/batch", ["requests": .array(creates)])
            #expect(reply.json?.arrayValue?.allSatisfy { $0["success"] != nil } == true, "\(reply)")
        }
    }

    @Test func batchItemsCountAgainstTheClientsRate() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Five requests a second, five at once. A batch of 500 reads is 500 requests: it is
        // served (its own token was there), and leaves the client owing ~100 s of its rate.
        try await TestServer.run(dataDirectory: directory, configure: { $0.rateLimits.perClient = 5 }) { api in
            let reads: [JSONValue] = (0..<500).map { _ in ["method": "GET", "path": "/1.1/classes/Anything"] }
            #expect(try await api.post("/1.1/batch", ["requests": .array(reads)]).status == .ok)
            expectError(try await api.get("/1.1/date"), code: 429, status: .tooManyRequests)
            expectError(try await api.post("/1.1/batch", ["requests": .array(reads)]), code: 429, status: .tooManyRequests)
            expectError(
                try await api.post("/1.1/batch/save", ["requests": .array([])]), code: 429, status: .tooManyRequests)
        }
    }

    @Test func concurrentBatchesCantEachRunUpADebt() {
        let buckets = TokenBuckets(rate: 1, burst: 3)
        let now = ContinuousClock.now
        // Three batches admitted at once (a token each), then their items counted.
        for _ in 0..<3 { #expect(buckets.take("a", now: now) == nil) }
        #expect(buckets.take("a", count: 499, needing: 0, now: now) == nil)
        #expect(buckets.take("a", count: 499, needing: 0, now: now) != nil)
        #expect(buckets.take("a", count: 499, needing: 0, now: now) != nil)
    }
}

/// A lock another session holds until the test lets it go.
actor TableLock {
    private var holding = false
    private var heldWaiters: [CheckedContinuation<Void, Never>] = []
    private var releaseWaiter: CheckedContinuation<Void, Never>?
    private var released = false

    /// Called by the lock's holder once it has the lock: returns when `release` is called.
    func hold() async {
        holding = true
        for waiter in heldWaiters { waiter.resume() }
        heldWaiters = []
        if released { return }
        await withCheckedContinuation { releaseWaiter = $0 }
    }

    /// Returns once the lock is held.
    func waitUntilHeld() async {
        if holding { return }
        await withCheckedContinuation { heldWaiters.append($0) }
    }

    /// Lets the holder go.
    func release() {
        released = true
        releaseWaiter?.resume()
        releaseWaiter = nil
    }
}
