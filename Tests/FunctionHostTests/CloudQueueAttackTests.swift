import CloudQueue
import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// The Cloud Queue's routes against callers without the master key and against hostile bodies:
/// each refused with a clear `{code, error}`, nothing enqueued, never a 500.
@Suite struct CloudQueueAttackTests {
    static let tasks = CloudQueueHTTPTests.tasks
    static let hook = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Hook-Key", "hook")])

    /// A server whose queue runs nothing (the tasks stay as enqueued).
    static func run(maxQueued: Int = 10_000, _ body: @Sendable (API) async throws -> Void) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, functions: CloudQueueHTTPTests.registry,
            configure: { configuration in
                configuration.queue.runsTasks = false
                configuration.queue.clock = ManualQueueClock()
                configuration.queue.settings.maxQueued = maxQueued
            }
        ) { api in try await body(api) }
    }

    @Test func onlyTheMasterKeyManagesTheQueue() async throws {
        try await Self.run { api in
            let id = try await CloudQueueHTTPTests.enqueue(api, ["function": "double", "params": ["n": 1], "uniqueId": "mine"])
            for headers in [Headers.client, Headers.none] {
                let status: HTTPResponse.Status = .unauthorized
                expectError(try await api.post(Self.tasks, headers: headers, ["function": "double"]), code: 401, status: status)
                expectError(try await api.get(Self.tasks, headers: headers), code: 401, status: status)
                expectError(try await api.post(Self.tasks + "/\(id)/retry", headers: headers, [:]), code: 401, status: status)
                expectError(try await api.delete(Self.tasks + "/\(id)", headers: headers), code: 401, status: status)
                expectError(try await api.delete(Self.tasks + "?status=queued", headers: headers), code: 401, status: status)
            }
            expectError(try await api.delete(Self.tasks + "?status=queued", headers: Self.hook), code: 401, status: .unauthorized)
            // A signed-in user is a client too.
            let (_, session) = try await FileFixture.signUp(api, "mallory")
            expectError(try await api.post(Self.tasks, headers: session, ["function": "double"]), code: 401, status: .unauthorized)
            // The status is the client's to poll (LeanEngine's getTaskInfo uses the app key).
            #expect(try await api.get(Self.tasks + "/\(id)").status == .ok)
            let list = try await api.get(Self.tasks, headers: Headers.master)
            #expect(list.results.count == 1, "nothing else was enqueued: \(list)")
        }
    }

    @Test func theMasterPurgesABacklogByStatusAndFunction() async throws {
        try await Self.run { api in
            for index in 0..<5 { _ = try await CloudQueueHTTPTests.enqueue(api, ["function": "double", "uniqueId": .string("d\(index)")]) }
            for index in 0..<3 { _ = try await CloudQueueHTTPTests.enqueue(api, ["function": "stamp", "uniqueId": .string("s\(index)")]) }
            let some = try await api.delete(Self.tasks + "?status=queued&function=double", headers: Headers.master)
            #expect(some.status == .ok && some["removed"] == 5, "\(some)")
            #expect(try await api.get(Self.tasks, headers: Headers.master).results.count == 3)
            #expect(try await api.delete(Self.tasks + "?status=queued", headers: Headers.master)["removed"] == 3)
            #expect(try await api.delete(Self.tasks + "?status=queued", headers: Headers.master)["removed"] == 0)
            // A running task ends under its lease; a status or function name that can't be is refused.
            for query in ["status=running", "status=nope", "", "status=queued&function=a/b"] {
                expectError(try await api.delete(Self.tasks + "?" + query, headers: Headers.master), code: 1, status: .badRequest)
            }
        }
    }

    @Test func onlyTheMasterKeyNamesTheUserATaskRunsAs() async throws {
        try await Self.run { api in
            let (userId, session) = try await FileFixture.signUp(api, "victim")
            // The hook key (LeanEngine's code enqueues with it) may enqueue, as the master.
            let hooked = try await api.post(Self.tasks, headers: Self.hook, ["function": "double"])
            #expect(hooked.status == .ok, "\(hooked)")
            expectError(
                try await api.post(Self.tasks, headers: Self.hook, ["function": "double", "user": .string(userId)]), code: 119,
                status: .forbidden)
            expectError(
                try await api.post(Self.tasks, headers: session, ["function": "double", "user": .string(userId)]), code: 401,
                status: .unauthorized)
            let list = try await api.get(Self.tasks, headers: Headers.master)
            #expect(list.results.count == 1, "\(list)")
            #expect(list.results.first?["user"] == .null)
        }
    }

    @Test func everyFieldIsBounded() async throws {
        try await Self.run { api in
            let big = String(repeating: "x", count: 40 * 1024)
            let refused: [JSONValue] = [
                [:],
                ["function": 5],
                ["function": "double", "params": ["blob": .string(big)]],
                ["function": "double", "params": [1, 2]],
                ["function": "double", "uniqueId": .string(String(repeating: "a", count: 33))],
                ["function": "double", "uniqueId": "a/b"],
                ["function": "double", "uniqueId": "../x"],
                ["function": "double", "uniqueId": 7],
                ["function": "double", "attempts": 0],
                ["function": "double", "attempts": 11],
                ["function": "double", "attempts": 1.5],
                ["function": "double", "backoff": -1],
                ["function": "double", "backoff": 100_000_000_000],
                ["function": "double", "delay": 3_000_000_000],
                ["function": "double", "keepResult": -5],
                ["function": "double", "timeout": 100_000_000],
                ["function": "double", "timeout": 10],
                ["function": "double", "priority": "high"],
                ["function": "double", "priority": 1e300],
                ["function": "double", "deliveryMode": "sometimes"],
                ["function": "double", "prod": 2],
                ["function": "no such/name"],
                ["function": "double", "user": ["__type": "Pointer", "className": "Todo", "objectId": "x"]],
                ["function": "double", "user": "not an id!"],
            ]
            for body in refused {
                let reply = try await api.post(Self.tasks, headers: Headers.master, body)
                expectError(reply, code: 1, status: .badRequest)
            }
            expectError(try await api.send(.post, Self.tasks, headers: Headers.master, body: "{\"function\":"), code: 107, status: .badRequest)
            expectError(try await api.send(.post, Self.tasks, headers: Headers.master, body: "[1]"), code: 107, status: .badRequest)
            // A duplicate uniqueId is refused while the first is kept.
            _ = try await CloudQueueHTTPTests.enqueue(api, ["function": "double", "uniqueId": "once"])
            expectError(
                try await api.post(Self.tasks, headers: Headers.master, ["function": "double", "uniqueId": "once"]), code: 137,
                status: .badRequest)
            // Unknown keys are ignored, as LeanEngine ignores them.
            #expect(try await api.post(Self.tasks, headers: Headers.master, ["function": "double", "deplay": 5]).status == .ok)
            let list = try await api.get(Self.tasks, headers: Headers.master)
            #expect(list.results.count == 2, "nothing refused was enqueued: \(list)")
            for query in ["?status=lost", "?limit=0", "?limit=101", "?limit=x"] {
                expectError(try await api.get(Self.tasks + query, headers: Headers.master), code: 1, status: .badRequest)
            }
        }
    }

    @Test func unknownTasksAreNotFoundAndTheQueueIsBounded() async throws {
        try await Self.run(maxQueued: 2) { api in
            expectError(try await api.get(Self.tasks + "/nothing-here"), code: 404, status: .notFound)
            expectError(try await api.post(Self.tasks + "/nothing-here/retry", headers: Headers.master, [:]), code: 404, status: .notFound)
            expectError(try await api.delete(Self.tasks + "/nothing-here", headers: Headers.master), code: 404, status: .notFound)
            expectError(try await api.get(Self.tasks + "/" + String(repeating: "z", count: 200)), code: 1, status: .badRequest)
            expectError(try await api.get(Self.tasks + "/bad%20id"), code: 1, status: .badRequest)
            _ = try await CloudQueueHTTPTests.enqueue(api, ["function": "double"])
            _ = try await CloudQueueHTTPTests.enqueue(api, ["function": "double"])
            expectError(try await api.post(Self.tasks, headers: Headers.master, ["function": "double"]), code: 429, status: .tooManyRequests)
            // A queued task is not a dead letter: retry refuses it.
            let list = try await api.get(Self.tasks, headers: Headers.master)
            let id = try #require(list.results.first?["uniqueId"]?.stringValue)
            let retry = try await api.post(Self.tasks + "/\(id)/retry", headers: Headers.master, [:])
            #expect((400..<500).contains(retry.status.code), "\(retry)")
        }
    }
}
