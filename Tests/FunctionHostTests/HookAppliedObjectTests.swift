import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// Before-hooks of creates and updates see the object with the client's operations applied, as
/// LeanEngine hands it; the write stays the client's atomic operations where the hook left a
/// key alone. Multi-object deletes run every `beforeDelete` before the first delete. A class
/// after-hook that throws answers LeanEngine's platform endpoint 500.
@Suite struct HookAppliedObjectTests {
    /// Cloud code as the apps write it: the page-view counter guard hexo-theme-next's docs have
    /// users paste into the console's online editor (a `beforeUpdate` of `Counter`), a hook that
    /// reports what it was handed for every operation, a delete guard and a failing afterSave.
    static let cloudCode = """
        var AV = require('leanengine');

        AV.Cloud.beforeUpdate('Counter', function (request) {
          var query = new AV.Query("Counter");
          if (request.object.updatedKeys.indexOf('time') !== -1) {
              return query.get(request.object.id).then(function (obj) {
                  if (obj.get("time") + 1 !== request.object.get("time")) {
                      throw new AV.Cloud.Error('Invalid update!');
                  }
              })
          }
        });

        function report(request) {
          var o = request.object, members = o.get('members');
          o.set('seen', JSON.stringify({
            n: o.get('n'), tags: o.get('tags'), uniq: o.get('uniq'), gone: o.has('gone'),
            flags: o.get('flags'), members: members instanceof AV.Relation ? members.targetClassName : members,
            keys: o.updatedKeys
          }));
          // A field changed from the value handed: written as the hook's value; one removed: deleted.
          if (typeof o.get('n') === 'number') o.set('double', o.get('n') * 2);
          if (o.get('draft') === 'scrub') o.unset('draft');
        }
        AV.Cloud.beforeSave('Sheet', report);
        AV.Cloud.beforeUpdate('Sheet', report);

        AV.Cloud.beforeDelete('Guarded', function (request) {
          if (request.object.get('keep')) throw new AV.Cloud.Error('This one stays.');
        });

        AV.Cloud.afterSave('Boom', function () { throw new Error('after went wrong'); });
        AV.Cloud.afterUpdate('Boom', function () { throw new AV.Cloud.Error('coded', { code: 3 }); });
        """

    /// What the Swift `beforeUpdate` of `Tally` was handed: its object and the client's body.
    final class Seen: Sendable {
        let value = Mutex<(object: [String: JSONValue], sent: [String: JSONValue])>(([:], [:]))
    }

    static func withServer<Value: Sendable>(seen: Seen = Seen(), _ body: @Sendable (API) async throws -> Value)
        async throws -> Value
    {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try cloudCode.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        var functions = FunctionRegistry()
        functions.hooks.beforeUpdate("Tally") { request in
            seen.value.withLock { $0 = (request.object, request.sent) }
            // A Swift hook refuses a negative step the way the counter guard does.
            let before = request.original?.fields["count"]?.intValue ?? 0
            if let after = request.object["count"]?.intValue, after < before {
                throw HookError(message: "Counts only go up.")
            }
            if let count = request.object["count"]?.intValue { request.object["label"] = .string("count \(count)") }
        }
        return try await TestServer.run(
            dataDirectory: directory, functions: functions, functionsDirectory: directory, body)
    }

    /// The JSON a path answers, fetched with the master key.
    static func stored(_ api: API, _ path: String) async throws -> Reply {
        try await api.get(path, headers: Headers.master)
    }

    // hexo-theme-next's counter: `PUT /1.1/classes/Counter/{id}` with
    // `{"time":{"__op":"Increment","amount":1}}`, X-LC-Id and X-LC-Key, as its page script sends.
    @Test func theBlogCounterGuardPassesAVisitAndRefusesANegativeIncrement() async throws {
        try await Self.withServer { api in
            let id = try await api.create(
                "Counter", ["title": "Hello", "url": "/2024/hello/", "time": 10], headers: Headers.master)
            let visit = try await api.put("/1.1/classes/Counter/\(id)", ["time": ["__op": "Increment", "amount": 1]])
            #expect(visit.status == .ok, "a visit counts: \(visit)")
            #expect(try await Self.stored(api, "/1.1/classes/Counter/\(id)")["time"] == 11)
            let forged = try await api.put("/1.1/classes/Counter/\(id)", ["time": ["__op": "Increment", "amount": -3]])
            expectError(forged, code: 142, status: .badRequest)
            #expect(forged["error"]?.stringValue?.contains("Invalid update!") == true, "\(forged)")
            let set = try await api.put("/1.1/classes/Counter/\(id)", ["time": 1000])
            expectError(set, code: 142, status: .badRequest)
            #expect(try await Self.stored(api, "/1.1/classes/Counter/\(id)")["time"] == 11, "nothing forged was written")
            // An update that leaves `time` alone isn't the guard's business.
            #expect(try await api.put("/1.1/classes/Counter/\(id)", ["title": "Hello again"]).status == .ok)
        }
    }

    @Test func aJavaScriptBeforeUpdateSeesEveryOperationApplied() async throws {
        try await Self.withServer { api in
            let member = try await api.create("Member", ["name": "m1"])
            let id = try await api.create(
                "Sheet", ["n": 5, "tags": ["a", "b"], "uniq": ["x"], "gone": "soon", "flags": 6, "draft": "scrub"])
            let reply = try await api.put(
                "/1.1/classes/Sheet/\(id)",
                [
                    "n": ["__op": "Increment", "amount": -3], "tags": ["__op": "Remove", "objects": ["a"]],
                    "uniq": ["__op": "AddUnique", "objects": ["x", "y"]], "gone": ["__op": "Delete"],
                    "flags": ["__op": "BitOr", "value": 1],
                    "members": [
                        "__op": "AddRelation", "objects": [["__type": "Pointer", "className": "Member", "objectId": .string(member)]],
                    ],
                ])
            #expect(reply.status == .ok, "\(reply)")
            let object = try await Self.stored(api, "/1.1/classes/Sheet/\(id)")
            let seen = try JSONValue(parsing: Array((object["seen"]?.stringValue ?? "").utf8))
            #expect(seen["n"] == 2 && seen["tags"] == ["b"] && seen["uniq"] == ["x", "y"], "\(seen)")
            #expect(seen["gone"] == false && seen["flags"] == 7 && seen["members"] == "Member", "\(seen)")
            #expect(seen["keys"]?.arrayValue?.count == 6, "updatedKeys names what the client changed: \(seen)")
            // What was written is what the operations compute, plus the hook's own change.
            #expect(object["n"] == 2 && object["double"] == 4 && object["tags"] == ["b"] && object["flags"] == 7, "\(object)")
            #expect(object["gone"] == nil && object["uniq"] == ["x", "y"] && object["draft"] == nil, "\(object)")
            let related = try await api.get(
                "/1.1/classes/Member?where=\(encode(#"{"$relatedTo":{"object":{"__type":"Pointer","className":"Sheet","objectId":"\#(id)"},"key":"members"}}"#))",
                headers: Headers.master)
            #expect(related.results.compactMap(\.["objectId"]) == [.string(member)], "the relation gained its member: \(related)")
        }
    }

    // The JS SDK's `new AV.Object('Sheet'); increment('n', 2); add('tags', 'a'); save()` posts the operations.
    @Test func aBeforeSaveSeesTheOperationsOfACreateApplied() async throws {
        try await Self.withServer { api in
            let created = try await api.post(
                "/1.1/classes/Sheet",
                ["n": ["__op": "Increment", "amount": 2], "tags": ["__op": "Add", "objects": ["a"]]])
            let id = try #require(created.objectId, "\(created)")
            let object = try await Self.stored(api, "/1.1/classes/Sheet/\(id)")
            let seen = try JSONValue(parsing: Array((object["seen"]?.stringValue ?? "").utf8))
            #expect(seen["n"] == 2 && seen["tags"] == ["a"], "\(seen)")
            #expect(object["n"] == 2 && object["double"] == 4 && object["tags"] == ["a"], "\(object)")
        }
    }

    @Test func aSwiftBeforeUpdateSeesTheAppliedObjectAndTheSentOperation() async throws {
        let seen = Seen()
        try await Self.withServer(seen: seen) { api in
            let id = try await api.create("Tally", ["count": 10, "title": "t"])
            let up = try await api.put("/1.1/classes/Tally/\(id)", ["count": ["__op": "Increment", "amount": 2]])
            #expect(up.status == .ok, "\(up)")
            let (object, sent) = seen.value.withLock { $0 }
            #expect(object["count"] == 12 && object["title"] == "t" && object["objectId"] == .string(id), "\(object)")
            #expect(sent == ["count": ["__op": "Increment", "amount": 2]], "\(sent)")
            let stored = try await Self.stored(api, "/1.1/classes/Tally/\(id)")
            #expect(stored["count"] == 12 && stored["label"] == "count 12", "\(stored)")
            expectError(
                try await api.put("/1.1/classes/Tally/\(id)", ["count": ["__op": "Decrement", "amount": 1]]), code: 142,
                status: .badRequest)
            #expect(try await Self.stored(api, "/1.1/classes/Tally/\(id)")["count"] == 12)
        }
    }

    @Test func incrementsUnderAHookStayAtomic() async throws {
        try await Self.withServer { api in
            let id = try await api.create("Tally", ["count": 0])
            let requests = (0..<16).map { _ in
                ConcurrentRequests.Request(
                    api: api, method: .put, path: "/1.1/classes/Tally/\(id)",
                    body: ["count": ["__op": "Increment", "amount": 1]])
            }
            let codes = try await ConcurrentRequests.codes(requests)
            #expect(codes.allSatisfy { $0 == 0 }, "\(codes)")
            #expect(try await Self.stored(api, "/1.1/classes/Tally/\(id)")["count"] == 16, "no increment was lost")
        }
    }

    // The JS SDK's `AV.Object.destroyAll([a, b])`: `DELETE /1.1/classes/Guarded/a,b`.
    @Test func aRefusedBeforeDeleteDeletesNoneOfADestroyAll() async throws {
        try await Self.withServer { api in
            let a = try await api.create("Guarded", ["keep": false])
            let b = try await api.create("Guarded", ["keep": true])
            let refused = try await api.delete("/1.1/classes/Guarded/\(a),\(b)")
            expectError(refused, code: 142, status: .badRequest)
            #expect(refused["error"]?.stringValue?.contains("This one stays.") == true, "\(refused)")
            #expect(try await api.results("Guarded").count == 2, "nothing was deleted")
            #expect(try await api.delete("/1.1/classes/Guarded/\(a)").status == .ok)
            #expect(try await api.results("Guarded").compactMap(\.["objectId"]) == [.string(b)])
        }
    }

    // The JS SDK's `destroyAll` of `_File` objects: `DELETE /1.1/classes/_File/a,b`.
    @Test func aRefusedBeforeDeleteFileDeletesNoneOfTheFiles() async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeDeleteFile { request in
            if request.object["name"] == "keep.txt" { throw HookError(code: 142, message: "Kept.") }
        }
        try await FileFixture.run(functions: functions) { api, _ in
            let drop = try await FileFixture.upload(api, "drop.txt", "d")
            let keep = try await FileFixture.upload(api, "keep.txt", "k")
            let (dropId, keepId) = (try #require(drop["objectId"]?.stringValue), try #require(keep["objectId"]?.stringValue))
            let refused = try await api.delete("/1.1/classes/_File/\(dropId),\(keepId)", headers: Headers.master)
            expectError(refused, code: 142)
            #expect(try await FileFixture.fileCount(api) == 2, "no file was deleted")
            #expect(try await api.get(try FileFixture.path(drop["url"]), headers: Headers.none).text == "d")
            #expect(try await api.delete("/1.1/classes/_File/\(dropId)", headers: Headers.master).status == .ok)
            #expect(try await FileFixture.fileCount(api) == 1)
        }
    }

    // MaxLeap's and LAS's `POST /2.0/classes/{C}/delete {"objectIds":[...]}`.
    @Test(arguments: DialectCase.families)
    func aRefusedBeforeDeleteDeletesNoneOfADialectDelete(dialect: DialectCase) async throws {
        try await Self.withServer { api in
            let a = try await api.create("Guarded", ["keep": false])
            let b = try await api.create("Guarded", ["keep": true])
            let refused = try await api.post(
                dialect.path("classes/Guarded/delete"), headers: dialect.client, ["objectIds": [.string(a), .string(b)]])
            expectDialectError(refused, code: 142, status: .badRequest)
            #expect(try await api.results("Guarded").count == 2, "nothing was deleted")
            let done = try await api.post(
                dialect.path("classes/Guarded/delete"), headers: dialect.client, ["objectIds": [.string(a)]])
            #expect(done.json == ["number": 1], "\(done)")
        }
    }

    // A storage service calls `POST /1.1/functions/Boom/afterSave` with the hook key, as the
    // LeanCloud platform calls a LeanEngine.
    @Test func aThrowingAfterHookAnswersThePlatformEndpoint500() async throws {
        try await Self.withServer { api in
            let hook = Headers.make([("X-LC-Hook-Key", "hook"), ("Content-Type", "application/json; charset=utf-8")])
            let object: JSONValue = [
                "objectId": "5f1a2b3c4d5e6f7a8b9c0d1e", "createdAt": "2024-01-01T00:00:00.000Z",
                "updatedAt": "2024-01-01T00:00:00.000Z", "__after": "1531128497221,574a3a09",
            ]
            let failed = try await api.post("/1.1/functions/Boom/afterSave", headers: hook, ["object": object, "user": .null])
            // An uncaught exception is described with its name, as every crash of cloud code is here.
            #expect(failed.status == .internalServerError, "\(failed)")
            #expect(failed.json == ["code": 1, "error": "Error: after went wrong"], "\(failed)")
            let coded = try await api.post("/1.1/functions/Boom/afterUpdate", headers: hook, ["object": object, "user": .null])
            #expect(coded.status == .internalServerError && coded.json == ["code": 3, "error": "coded"], "\(coded)")
            // A storage write still stands whatever its afterSave does.
            let created = try await api.post("/1.1/classes/Boom", ["title": "kept"])
            #expect(created.status == .created, "\(created)")
        }
    }
}
