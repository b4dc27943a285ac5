import CloudQueue
import DataAPI
import Foundation
import JSON
import Logging
import Synchronization
import TestSupport
import Testing

/// One test's database, clock and hosts: a SQLite file of its own, or a schema of the PostgreSQL
/// test server (`FUNCTIONHOST_TEST_DATABASE_URL`). Each host (`queue(...)`) opens its own engine
/// on that database, as a separate process would, and they share the manual clock.
final class QueueFixture: Sendable {
    let clock = ManualQueueClock()
    let calls = CallLog()
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fh-queue-\(UUID().uuidString)")
    private let schema = "q_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    private let postgres = Mutex<[PostgresStorage]>([])

    /// Runs `body` with a fresh fixture, closing its engines and removing its files after.
    static func run(_ body: (QueueFixture) async throws -> Void) async throws {
        let fixture = QueueFixture()
        do {
            try await body(fixture)
        } catch {
            await fixture.close()
            throw error
        }
        await fixture.close()
    }

    /// A data service over a new engine on this test's database.
    func data() async throws -> DataService {
        if let server = TestDatabase.server {
            let storage = try await PostgresStorage(location: server.inSchema(schema))
            postgres.withLock { $0.append(storage) }
            return DataService(storage: storage)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return DataService(sqlite: try SQLiteStorage(path: directory.appendingPathComponent("queue.sqlite").path))
    }

    /// A host's queue on this test's database, whose tasks run through `TestFunctions`.
    func queue(
        host: String = "host-a", data: DataService? = nil, configure: (inout QueueSettings) -> Void = { _ in }
    ) async throws -> CloudQueue {
        var settings = QueueSettings()
        settings.hostID = host
        settings.leaseGrace = .seconds(5)
        configure(&settings)
        let functions = TestFunctions(host: host, clock: clock, calls: calls)
        let service: DataService
        if let data { service = data } else { service = try await self.data() }
        return CloudQueue(
            data: service, clock: clock, settings: settings, invoker: { await functions.invoke($0) },
            logger: Logger(label: "test.queue"))
    }

    func close() async {
        for storage in postgres.withLock({ $0 }) { await storage.close() }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Who ran what: each call's host, task and attempt, in the order they started, and the tasks
/// running now (a task found running twice at once is recorded as an overlap).
final class CallLog: Sendable {
    struct Call: Sendable, Hashable {
        let host: String
        let uniqueId: String
        let function: String
        let attempt: Int
    }

    private let state = Mutex<(calls: [Call], inFlight: Set<String>, overlaps: [String], failing: Set<String>)>(([], [], [], []))
    private let ends = Mutex<(count: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, []))

    /// Returns once `count` calls have ended, or after `timeout` of real time (false: the test fails).
    func waitForEnds(_ count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let ready = self.ends.withLock { state -> Bool in
                        if state.count >= count { return true }
                        state.waiters.append((count, continuation))
                        return false
                    }
                    if ready { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            if !first {
                let stale = ends.withLock { state in
                    defer { state.waiters.removeAll() }
                    return state.waiters.map(\.1)
                }
                for continuation in stale { continuation.resume() }
            }
            group.cancelAll()
            return first
        }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    var overlaps: [String] { state.withLock { $0.overlaps } }

    func started(_ call: Call) {
        state.withLock { state in
            state.calls.append(call)
            if !state.inFlight.insert(call.uniqueId).inserted { state.overlaps.append(call.uniqueId) }
        }
    }

    func ended(_ uniqueId: String) {
        _ = state.withLock { $0.inFlight.remove(uniqueId) }
        let ready = ends.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let count = state.count
            defer { state.waiters.removeAll { $0.0 <= count } }
            return state.waiters.filter { $0.0 <= count }.map(\.1)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Makes `flaky` fail (or succeed again) for one task.
    func setFailing(_ uniqueId: String, _ failing: Bool) {
        state.withLock { state in
            if failing { state.failing.insert(uniqueId) } else { state.failing.remove(uniqueId) }
        }
    }

    func isFailing(_ uniqueId: String) -> Bool { state.withLock { $0.failing.contains(uniqueId) } }

    /// The uniqueIds of the calls, in order.
    var order: [String] { calls.map(\.uniqueId) }
}

/// The functions tasks call in these tests, by name:
/// - `echo`: answers its params, with a log line;
/// - `fail`: answers a retryable error (500);
/// - `flaky`: fails while the call log says so, else answers `"ok"`;
/// - `missing`: answers a non-retryable 404;
/// - `hang`: waits on the manual clock for a day (until cancelled), a function that never answers;
/// - `slowTimeout`: answers `.timedOut`, as the host's invoker does past the deadline.
struct TestFunctions: Sendable {
    let host: String
    let clock: ManualQueueClock
    let calls: CallLog

    func invoke(_ invocation: TaskInvocation) async -> (outcome: TaskOutcome, logs: [String]) {
        calls.started(.init(host: host, uniqueId: invocation.uniqueId, function: invocation.function, attempt: invocation.attempt))
        defer { calls.ended(invocation.uniqueId) }
        switch invocation.function {
        case "echo":
            return (.success(invocation.params), ["echo ran on \(host)"])
        case "fail":
            return (.failure(statusCode: 500, code: 1, message: "boom", retryable: true), ["about to fail"])
        case "flaky":
            if calls.isFailing(invocation.uniqueId) {
                return (.failure(statusCode: 400, code: 1, message: "not yet", retryable: true), [])
            }
            return (.success("ok"), [])
        case "missing":
            return (.failure(statusCode: 404, code: 1, message: "No such cloud function: missing", retryable: false), [])
        case "hang":
            try? await clock.sleep(until: invocation.deadline.addingTimeInterval(86_400))
            return (.success("too late"), [])
        case "slowTimeout":
            return (.timedOut, ["stopped at the deadline"])
        default:
            return (.failure(statusCode: 404, code: 1, message: "unknown", retryable: false), [])
        }
    }
}

/// Expects `body` to throw a `CloudQueueError` of `kind` (and `code` when given).
@discardableResult
func expectQueueError(
    _ kind: CloudQueueError.Kind, code: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> CloudQueueError? {
    let error = await #expect(throws: CloudQueueError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.kind == kind, "\(String(describing: error))", sourceLocation: sourceLocation)
    if let code { #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation) }
    return error
}
