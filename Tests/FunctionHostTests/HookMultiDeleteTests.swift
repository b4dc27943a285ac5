import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// A multi-object delete is all or none: its deletes are one storage transaction, so a
/// conditional `destroyAll` that fails (305) deletes nothing, and `afterDelete` runs only for
/// what it deleted, once committed. One names at most `DataService.maxDeleteIds` ids (107),
/// however it arrives: a URL, a `/batch` item, a dialect's `objectIds`, `_File`.
@Suite struct HookMultiDeleteTests {
    /// The ids every `afterDelete` of `Raced` (and every `afterDeleteFile`) was handed.
    final class AfterLog: Sendable {
        let ids = Mutex<[String]>([])
        /// What was logged since the last call, emptying the log.
        func take() -> [String] { ids.withLock { ids in defer { ids = [] }; return ids } }
    }

    /// `Raced` has both delete hooks: its `beforeDelete` sets `x` of the object a `bump` field
    /// names to 2 (as a concurrent `PUT` would, between the delete's checks and its writes);
    /// its `afterDelete` logs the id.
    static func withServer(_ log: AfterLog, _ body: @Sendable (API) async throws -> Void) async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeDelete("Raced") { request in
            if let other = request.object["bump"]?.stringValue {
                _ = try await request.data.asMaster.withoutHooks.update("Raced", id: other, ["x": 2])
            }
        }
        functions.hooks.afterDelete("Raced") { request in
            log.ids.withLock { $0.append(request.object["objectId"]?.stringValue ?? "?") }
        }
        try await TestServer.run(functions: functions) { api in try await body(api) }
    }

    /// The ids of `ids` whose objects exist.
    static func existing(_ api: API, _ ids: [String]) async throws -> Set<String> {
        let condition: JSONValue = ["objectId": ["$in": .array(ids.map(JSONValue.string))]]
        let found = try await api.results("Raced", ["where": condition.jsonString])
        return Set(found.compactMap { $0["objectId"]?.stringValue })
    }

    static let whereX1 = encode(#"{"x":1}"#)

    // The JS SDK's `AV.Object.destroyAll([a, b], {query})`: `DELETE /1.1/classes/Raced/a,b?where=...`,
    // where b changed after the delete checked it (here in a's beforeDelete, so every time).
    @Test func aConditionalDestroyAllThatFailsDeletesNoneAndRunsNoAfterDelete() async throws {
        let log = AfterLog()
        try await Self.withServer(log) { api in
            let b = try await api.create("Raced", ["x": 1])
            let a = try await api.create("Raced", ["x": 1, "bump": .string(b)])
            let refused = try await api.delete("/1.1/classes/Raced/\(a),\(b)?where=\(Self.whereX1)")
            expectError(refused, code: 305, status: .badRequest)
            #expect(try await Self.existing(api, [a, b]) == [a, b], "nothing was deleted")
            #expect(log.take().isEmpty, "no afterDelete ran for an object that stays")
            // Without the condition both go, each with its afterDelete.
            #expect(try await api.delete("/1.1/classes/Raced/\(a),\(b)").status == .ok)
            #expect(try await Self.existing(api, [a, b]).isEmpty)
            #expect(Set(log.take()) == [a, b])
        }
    }

    // The attacker's race: the conditional `destroyAll` and `PUT /1.1/classes/Raced/b {"x":2}` at
    // once. Whichever wins, a round ends with both deleted (each afterDelete run) or neither.
    @Test func aConditionalDestroyAllRacingAnUpdateIsAllOrNone() async throws {
        let log = AfterLog()
        try await Self.withServer(log) { api in
            for round in 0..<40 {
                let a = try await api.create("Raced", ["x": 1])
                let b = try await api.create("Raced", ["x": 1])
                async let deleting = api.delete("/1.1/classes/Raced/\(a),\(b)?where=\(Self.whereX1)")
                async let updating = api.put("/1.1/classes/Raced/\(b)", ["x": 2])
                let (deleted, updated) = try await (deleting, updating)
                let left = try await Self.existing(api, [a, b])
                let ran = Set(log.take())
                if deleted.status == .ok {
                    #expect(left.isEmpty && ran == [a, b], "round \(round): deleted, left \(left), afterDelete ran for \(ran)")
                    expectError(updated, code: 101, status: .notFound)
                } else {
                    expectError(deleted, code: 305, status: .badRequest)
                    #expect(left == [a, b] && ran.isEmpty, "round \(round): refused, left \(left), afterDelete ran for \(ran)")
                    #expect(updated.status == .ok, "round \(round): \(updated)")
                }
            }
        }
    }

    /// `n` well-formed ids no object has.
    static func unknownIds(_ n: Int) -> [String] {
        (0..<n).map { String(format: "%024x", $0 + 1) }
    }

    // `DELETE /1.1/classes/Raced/id1,...,id1001`: refused before any is read; 1000 is served.
    @Test func aDestroyAllNamesAtMostAThousandIds() async throws {
        let log = AfterLog()
        try await Self.withServer(log) { api in
            let a = try await api.create("Raced", ["x": 1])
            let b = try await api.create("Raced", ["x": 1])
            let tooMany = try await api.delete("/1.1/classes/Raced/\(([a, b] + Self.unknownIds(999)).joined(separator: ","))")
            expectError(tooMany, code: 107, status: .badRequest)
            #expect(tooMany["error"]?.stringValue?.contains("at most 1000") == true, "\(tooMany)")
            #expect(try await Self.existing(api, [a, b]) == [a, b] && log.take().isEmpty)
            // The same ids through `/1.1/batch`, as the JS SDK's `destroyAll` sends them.
            let batch = try await api.post(
                "/1.1/batch",
                ["requests": [["method": "DELETE", "path": .string("/1.1/classes/Raced/" + ([a] + Self.unknownIds(1000)).joined(separator: ","))]]])
            #expect(batch.status == .ok, "\(batch)")
            #expect(batch.json?.arrayValue?.first?["error"]?["code"] == 107, "\(batch)")
            #expect(try await Self.existing(api, [a, b]) == [a, b])
            let atLimit = try await api.delete("/1.1/classes/Raced/\(([a, b] + Self.unknownIds(998)).joined(separator: ","))")
            #expect(atLimit.status == .ok, "\(atLimit)")
            #expect(try await Self.existing(api, [a, b]).isEmpty && Set(log.take()) == [a, b])
        }
    }

    // MaxLeap's and LAS's `POST /2.0/classes/{C}/delete` keep their own answer for too many ids.
    @Test(arguments: DialectCase.families)
    func aDialectDeleteNamesAtMostAThousandIds(dialect: DialectCase) async throws {
        try await Self.withServer(AfterLog()) { api in
            let a = try await api.create("Raced", ["x": 1])
            let ids = ([a] + Self.unknownIds(1000)).map(JSONValue.string)
            let refused = try await api.post(dialect.path("classes/Raced/delete"), headers: dialect.client, ["objectIds": .array(ids)])
            expectDialectError(refused, code: 107, status: .badRequest)
            #expect(try await Self.existing(api, [a]) == [a])
        }
    }

    // `DELETE /1.1/classes/_File/a,b` with the master key: capped alike, before any file hook
    // runs; a file another request deleted meanwhile gets no afterDeleteFile from this one.
    @Test func aFileDestroyAllIsCappedAndFinishesOnlyWhatItDeleted() async throws {
        let before = AfterLog()
        let after = AfterLog()
        let other = Mutex<String?>(nil)
        var functions = FunctionRegistry()
        functions.hooks.beforeDeleteFile { request in
            before.ids.withLock { $0.append(request.object["objectId"]?.stringValue ?? "?") }
            // Another request deletes the second file's object between the checks and the deletes.
            if request.object["name"] == "first.txt", let id = other.withLock({ $0 }) {
                try await request.data.asMaster.withoutHooks.delete("_File", id: id)
            }
        }
        functions.hooks.afterDeleteFile { request in
            after.ids.withLock { $0.append(request.object["objectId"]?.stringValue ?? "?") }
        }
        try await FileFixture.run(functions: functions) { api, _ in
            let first = try #require(try await FileFixture.upload(api, "first.txt", "1")["objectId"]?.stringValue)
            let second = try #require(try await FileFixture.upload(api, "second.txt", "2")["objectId"]?.stringValue)
            let tooMany = try await api.delete(
                "/1.1/classes/_File/\(([first, second] + Self.unknownIds(999)).joined(separator: ","))", headers: Headers.master)
            expectError(tooMany, code: 107, status: .badRequest)
            #expect(before.take().isEmpty && after.take().isEmpty, "no file hook ran")
            #expect(try await FileFixture.fileCount(api) == 2)
            other.withLock { $0 = second }
            let deleted = try await api.delete("/1.1/classes/_File/\(first),\(second)", headers: Headers.master)
            #expect(deleted.status == .ok, "\(deleted)")
            #expect(Set(before.take()) == [first, second])
            #expect(after.take() == [first], "afterDeleteFile runs for what this delete deleted")
            #expect(try await FileFixture.fileCount(api) == 0)
        }
    }
}
