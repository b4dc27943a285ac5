import DataAPI
import Foundation
import JSON
import Sandbox
import TestSupport
import Testing

@testable import FunctionHost

/// The `data.*` operations the JavaScript SDK calls, against a real SQLite file.
@Suite struct ScriptDataOperationsTests {
    /// A fresh database file, removed with its WAL and SHM files when the test ends.
    final class Fixture: Sendable {
        /// The database file.
        let path: String
        /// The operations under test, over that file.
        let operations: ScriptDataOperations

        /// Opens a new database.
        init() throws {
            path = FileManager.default.temporaryDirectory
                .appendingPathComponent("ScriptDataOperations-\(UUID().uuidString).sqlite").path
            operations = ScriptDataOperations(service: DataService(sqlite: try SQLiteStorage(path: path)))
        }

        deinit {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }

        /// Performs an operation as the master, or as a plain client.
        func call(_ name: String, _ arguments: JSONValue, master: Bool = true) async throws(HostCallError) -> JSONValue {
            // Names outside the declaration never reach a host: the bridge refuses them
            // (BridgeOperationTests); here a misspelt name in a test is its own failure.
            guard let operation = BridgeOperation(rawValue: name) else {
                throw HostCallError(code: -1, message: "'\(name)' is not a bridge operation: fix the test.")
            }
            return try await operations.perform(operation, arguments: arguments, caller: Caller(isMaster: master))
        }

        /// Creates an object and returns its id.
        func create(_ className: String, _ data: JSONValue) async throws -> String {
            let object = try await call("data.create", ["className": .string(className), "data": data])
            return try #require(object["objectId"]?.stringValue)
        }
    }

    /// Expects the operation to fail with `code`.
    private func expectCode(
        _ code: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected error \(code)", sourceLocation: sourceLocation)
        } catch let error as HostCallError {
            #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a HostCallError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func createReturnsTheStoredObject() async throws {
        let fixture = try Fixture()
        let object = try await fixture.call(
            "data.create",
            [
                "className": "Todo", "fetchWhenSave": true,
                "data": ["title": "write", "n": 1, "when": ["__type": "Date", "iso": "2024-05-01T10:00:00.000Z"]],
                "options": ["useMasterKey": false, "sessionToken": nil],
            ])
        #expect(object["objectId"]?.stringValue?.isEmpty == false)
        #expect(object["createdAt"]?.stringValue != nil)
        #expect(object["updatedAt"] == object["createdAt"])
        #expect(object["title"] == "write")
        #expect(object["n"] == 1)
        #expect(object["when"] == ["__type": "Date", "iso": "2024-05-01T10:00:00.000Z"])
    }

    @Test func updateAppliesOperationsAndReturnsTheWholeObject() async throws {
        let fixture = try Fixture()
        let id = try await fixture.create("Todo", ["title": "a", "n": 1, "tags": ["x", "y"], "gone": true])
        let object = try await fixture.call(
            "data.update",
            [
                "className": "Todo", "objectId": .string(id),
                "data": [
                    "n": ["__op": "Increment", "amount": 2], "tags": ["__op": "AddUnique", "objects": ["y", "z"]],
                    "gone": ["__op": "Delete"],
                ],
            ])
        #expect(object["objectId"] == .string(id))
        #expect(object["title"] == "a")
        #expect(object["n"] == 3)
        #expect(object["tags"] == ["x", "y", "z"])
        #expect(object["gone"] == nil)
        let removed = try await fixture.call(
            "data.update",
            ["className": "Todo", "objectId": .string(id), "data": ["tags": ["__op": "Remove", "objects": ["x"]]]])
        #expect(removed["tags"] == ["y", "z"])
    }

    @Test func conditionalWritesRefuseWithCode305() async throws {
        let fixture = try Fixture()
        let id = try await fixture.create("Account", ["balance": 10])
        let withdraw: JSONValue = ["balance": ["__op": "Increment", "amount": -30]]
        await expectCode(305) {
            _ = try await fixture.call(
                "data.update",
                [
                    "className": "Account", "objectId": .string(id), "data": withdraw,
                    "where": ["balance": ["$gte": 30]],
                ])
        }
        let ok = try await fixture.call(
            "data.update",
            [
                "className": "Account", "objectId": .string(id), "data": ["balance": ["__op": "Increment", "amount": -5]],
                "where": ["balance": ["$gte": 5]],
            ])
        #expect(ok["balance"] == 5)
        await expectCode(305) {
            _ = try await fixture.call(
                "data.delete", ["className": "Account", "objectId": .string(id), "where": ["balance": ["$gt": 100]]])
        }
    }

    @Test func deleteRemovesTheObject() async throws {
        let fixture = try Fixture()
        let id = try await fixture.create("Todo", ["title": "a"])
        let result = try await fixture.call("data.delete", ["className": "Todo", "objectId": .string(id)])
        #expect(result == .null)
        await expectCode(101) { _ = try await fixture.call("data.fetch", ["className": "Todo", "objectId": .string(id)]) }
    }

    @Test func fetchResolvesIncludesAndSelectsKeys() async throws {
        let fixture = try Fixture()
        let author = try await fixture.create("Author", ["name": "Ann", "age": 40])
        let post = try await fixture.create(
            "Post",
            ["title": "Hi", "body": "long", "author": ["__type": "Pointer", "className": "Author", "objectId": .string(author)]])
        let full = try await fixture.call(
            "data.fetch", ["className": "Post", "objectId": .string(post), "include": ["author"]])
        #expect(full["title"] == "Hi")
        #expect(full["author"]?["__type"] == "Object")
        #expect(full["author"]?["className"] == "Author")
        #expect(full["author"]?["name"] == "Ann")
        let selected = try await fixture.call(
            "data.fetch", ["className": "Post", "objectId": .string(post), "keys": ["title"], "include": []])
        #expect(selected["title"] == "Hi")
        #expect(selected["body"] == nil)
        #expect(selected["author"] == nil)
        #expect(selected["objectId"] == .string(post))
        let plain = try await fixture.call("data.fetch", ["className": "Post", "objectId": .string(post)])
        #expect(plain["author"] == ["__type": "Pointer", "className": "Author", "objectId": .string(author)])
    }

    @Test func findFiltersOrdersAndPages() async throws {
        let fixture = try Fixture()
        for (index, name) in ["a", "b", "c", "d", "e"].enumerated() {
            _ = try await fixture.create("Score", ["name": .string(name), "score": .int(Int64(index)), "secret": "s"])
        }
        let results = try await fixture.call(
            "data.find",
            [
                "className": "Score", "where": ["score": ["$gte": 1]], "order": "-score,name", "limit": 2, "skip": 1,
                "keys": ["name"],
            ])
        let rows = try #require(results.arrayValue)
        #expect(rows.map { $0["name"] } == ["d", "c"])
        #expect(rows.allSatisfy { $0["secret"] == nil && $0["score"] == nil && $0["objectId"] != nil })
        let all = try await fixture.call("data.find", ["className": "Score", "order": "score"])
        #expect(all.arrayValue?.count == 5)
        #expect(all.arrayValue?.first?["ACL"] == nil)
        let ors = try await fixture.call(
            "data.find",
            ["className": "Score", "where": ["$or": [["name": "a"], ["score": ["$in": [4]]]]], "order": ["name"]])
        #expect(ors.arrayValue?.map { $0["name"] } == ["a", "e"])
    }

    @Test func countCountsTheMatches() async throws {
        let fixture = try Fixture()
        for score in 0..<4 { _ = try await fixture.create("Score", ["score": .int(Int64(score))]) }
        #expect(try await fixture.call("data.count", ["className": "Score", "where": ["score": ["$lt": 3]]]) == 3)
        #expect(try await fixture.call("data.count", ["className": "Score", "limit": 1]) == 4)
    }

    @Test func missingObjectsAreCode101ExceptForDelete() async throws {
        let fixture = try Fixture()
        _ = try await fixture.create("Todo", ["title": "a"])
        await expectCode(101) { _ = try await fixture.call("data.fetch", ["className": "Todo", "objectId": "nope"]) }
        await expectCode(101) {
            _ = try await fixture.call("data.update", ["className": "Todo", "objectId": "nope", "data": ["x": 1]])
        }
        // As over REST, deleting what is already gone succeeds: SDKs replay deletes.
        #expect(try await fixture.call("data.delete", ["className": "Todo", "objectId": "nope"]) == .null)
    }

    @Test func missingClassesAreCode101() async throws {
        let fixture = try Fixture()
        await expectCode(101) { _ = try await fixture.call("data.find", ["className": "Nothing"]) }
        await expectCode(101) { _ = try await fixture.call("data.count", ["className": "Nothing"]) }
        await expectCode(101) { _ = try await fixture.call("data.fetch", ["className": "Nothing", "objectId": "x"]) }
    }

    @Test func malformedArgumentsGetTheRESTCodes() async throws {
        let fixture = try Fixture()
        _ = try await fixture.create("Todo", ["title": "a"])
        await expectCode(102) {
            _ = try await fixture.call("data.find", ["className": "Todo", "where": ["title": ["$bogus": 1]]])
        }
        await expectCode(102) { _ = try await fixture.call("data.find", ["className": "Todo", "limit": -1]) }
        await expectCode(103) { _ = try await fixture.call("data.find", ["where": [:]]) }
        await expectCode(103) { _ = try await fixture.call("data.create", ["className": "9bad", "data": [:]]) }
        await expectCode(104) { _ = try await fixture.call("data.update", ["className": "Todo", "data": [:]]) }
        await expectCode(107) { _ = try await fixture.call("data.create", ["className": "Todo", "data": [1]]) }
    }

    @Test func systemClassesNeedTheMasterKey() async throws {
        let fixture = try Fixture()
        await expectCode(119) {
            _ = try await fixture.call("data.create", ["className": "_Role", "data": ["name": "u"]], master: false)
        }
    }

    /// The bridge's other operations are not data operations: refused here, whoever asks. (A
    /// name the bridge doesn't declare never reaches a host: `BridgeOperationTests`.)
    @Test func operationsOtherThanDataAreRefused() async throws {
        let fixture = try Fixture()
        for operation in BridgeOperation.allCases where !operation.isData {
            await expectCode(1) {
                _ = try await fixture.operations.perform(operation, arguments: ["className": "Todo"], caller: Caller(isMaster: true))
            }
        }
    }
}
