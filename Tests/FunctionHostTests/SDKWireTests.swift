import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Requests exactly as the official SDKs send them (the JS SDK's own suite, LeanEngine's
/// platform), answered as LeanCloud answers them.
@Suite struct SDKWireTests {
    /// The client key plus the hook key, as the JS SDK sends it once `hookKey` is configured.
    static let withHookKey = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Hook-Key", "hook")])
    static let wrongHookKey = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Hook-Key", "nope")])

    /// Hooks that mark what ran, and one that refuses deletes, as the JS suite's test app has.
    static var markingHooks: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.hooks.beforeSave("Marked") { request in request.object["byBeforeSave"] = 1 }
        registry.hooks.afterSave("Marked") { request in
            guard let id = request.object["objectId"]?.stringValue else { return }
            _ = try await request.data.withoutHooks.update("Marked", id: id, ["byAfterSave": 1])
        }
        registry.hooks.beforeDelete("Marked") { _ in throw HookError(code: 1, message: "Error from beforeDelete") }
        registry.hooks.beforeSave("Rejecting") { _ in throw HookError.rejected("no thanks") }
        registry.hooks.beforeSave("Crashing") { _ in throw CocoaError(.featureUnsupported) }
        registry.define("adminOnly", options: .init(isInternal: true)) { _ in "internal" }
        return registry
    }

    /// LeanCloud reserves only objectId, createdAt, updatedAt and ACL: `id` is a field (the JS
    /// suite's GameScore has one).
    @Test func aFieldNamedIdIsAnOrdinaryField() async throws {
        try await TestServer.run { api in
            let id = try await api.create("GameScore", ["score": 10000, "id": "id", "className": "c", "description": "d"])
            let object = try await api.fetch("GameScore", id)
            #expect(object["id"] == "id" && object["className"] == "c" && object["description"] == "d", "\(object)")
            #expect(try await api.results("GameScore", ["where": #"{"id":"id"}"#]).count == 1)
            expectError(try await api.post("/1.1/classes/GameScore", ["objectId": "x"]), code: 105, status: .badRequest)
        }
    }

    /// The JS SDK's `fetchWhenSave` is `?new=true`: a create answers every field, an update the
    /// fields it changed.
    @Test func newTrueAnswersTheSavedFields() async throws {
        try await TestServer.run { api in
            let created = try await api.post("/1.1/classes/Person?new=true", ["pname": "dennis", "age": 3])
            #expect(created.status == .created)
            #expect(created["pname"] == "dennis" && created["age"] == 3 && created["objectId"] != nil, "\(created)")
            let id = try #require(created["objectId"]?.stringValue)
            let updated = try await api.put("/1.1/classes/Person/\(id)?new=true", ["age": ["__op": "Increment", "amount": 2]])
            #expect(updated["age"] == 5 && updated["pname"] == nil && updated["updatedAt"] != nil, "\(updated)")
        }
    }

    /// `__ignore_hooks` with the hook key, in every body that carries it (create, update, a
    /// DELETE's body, batch items); a client without it is refused and nothing is written.
    @Test func ignoreHooksTakesTheHookKey() async throws {
        try await TestServer.run(functions: Self.markingHooks) { api in
            let skipBefore = try await api.post(
                "/1.1/classes/Marked", headers: Self.withHookKey, ["title": "t", "__ignore_hooks": ["beforeSave"]])
            let id = try #require(skipBefore["objectId"]?.stringValue, "\(skipBefore)")
            let stored = try await api.fetch("Marked", id)
            #expect(stored["byBeforeSave"] == nil && stored["byAfterSave"] == 1, "\(stored)")

            expectError(
                try await api.post("/1.1/classes/Marked", ["title": "x", "__ignore_hooks": ["beforeSave"]]), code: 119,
                status: .forbidden)
            expectError(
                try await api.post(
                    "/1.1/classes/Marked", headers: Self.wrongHookKey, ["title": "x", "__ignore_hooks": ["beforeSave"]]),
                code: 119, status: .forbidden)
            #expect(try await api.count("Marked") == 1, "refused writes wrote nothing")

            // A DELETE carries __ignore_hooks in its body (the JS SDK's destroy).
            expectError(try await api.delete("/1.1/classes/Marked/\(id)"), code: 1)
            let refused = try await api.send(
                .delete, "/1.1/classes/Marked/\(id)", headers: Headers.client, json: ["__ignore_hooks": ["beforeDelete"]])
            expectError(refused, code: 119, status: .forbidden)
            let deleted = try await api.send(
                .delete, "/1.1/classes/Marked/\(id)", headers: Self.withHookKey, json: ["__ignore_hooks": ["beforeDelete"]])
            #expect(deleted.status == .ok, "\(deleted)")
            #expect(try await api.count("Marked") == 0)

            let batch = try await api.post(
                "/1.1/batch", headers: Self.withHookKey,
                ["requests": [["method": "POST", "path": "/1.1/classes/Marked", "body": ["__ignore_hooks": ["beforeSave"]]]]])
            #expect(batch.json?.arrayValue?.first?["success"]?["objectId"] != nil, "\(batch)")
        }
    }

    /// `DELETE /classes/C/id1,id2,...` (the JS SDK's destroyAll, inside a batch) deletes each
    /// with hooks and ACL; one the caller may not delete fails the call with nothing deleted.
    @Test func destroyAllDeletesEachObject() async throws {
        try await TestServer.run { api in
            var ids: [String] = []
            for number in 0..<5 { ids.append(try await api.create("deletedAll", ["number": .int(Int64(number))])) }
            let locked = try await api.create("deletedAll", ["number": 9, "ACL": ["*": ["read": true]]])
            let refused = try await api.post(
                "/1.1/batch",
                ["requests": [["method": "DELETE", "path": .string("/1.1/classes/deletedAll/" + (ids + [locked]).joined(separator: ","))]]])
            #expect(refused.json?.arrayValue?.first?["error"]?["code"] == 119, "\(refused)")
            #expect(try await api.count("deletedAll") == 6, "nothing was deleted")
            let batch = try await api.post(
                "/1.1/batch", ["requests": [["method": "DELETE", "path": .string("/1.1/classes/deletedAll/" + ids.joined(separator: ","))]]])
            #expect(batch.json == [["success": [:]]], "\(batch)")
            #expect(try await api.count("deletedAll") == 1)
            #expect(try await api.delete("/1.1/classes/deletedAll/\(locked),\(locked)", headers: Headers.master).status == .ok)
            #expect(try await api.count("deletedAll") == 0)
        }
    }

    /// Including a key that holds no Pointer is ignored, as LeanCloud does (the JS suite's
    /// `include('score', 'test')`).
    @Test func includeOfAPlainFieldIsIgnored() async throws {
        try await TestServer.run { api in
            let id = try await api.create("GameScore", ["score": 5, "name": "x"])
            let found = try await api.results("GameScore", ["include": "score,test"])
            #expect(found.first?["score"] == 5, "\(found)")
            #expect(try await api.get("/1.1/classes/GameScore/\(id)?include=score,name")["score"] == 5)
        }
    }

    /// CQL as LeanCloud's docs write a count with rows: `select *, count(objectId)`, and `?` in
    /// `limit`.
    @Test func cqlCountsWithRowsAndPlaceholderLimits() async throws {
        try await TestServer.run { api in
            for score in 0..<7 { _ = try await api.create("GameScore", ["score": .int(Int64(score))]) }
            let both = try await api.get("/1.1/cloudQuery?cql=\(encode("select *,count(objectId) from GameScore limit 5"))")
            #expect(both["count"] == 7 && both["results"]?.arrayValue?.count == 5, "\(both)")
            let placeholder = try await api.get(
                "/1.1/cloudQuery?cql=\(encode("select *, count(objectId) from GameScore limit ?"))&pvalues=\(encode("[3]"))")
            #expect(placeholder["count"] == 7 && placeholder["results"]?.arrayValue?.count == 3, "\(placeholder)")
            let capped = try await api.get("/1.1/cloudQuery?cql=\(encode("select * from GameScore limit 5000"))")
            #expect(capped["results"]?.arrayValue?.count == 7, "\(capped)")
            expectError(try await api.get("/1.1/cloudQuery?cql=\(encode("select count(title) from GameScore"))"), code: 300)
        }
    }

    /// `__op: "Batch"` of AddRelation and RemoveRelation on one field, as the JS SDK sends a
    /// relation that gains and loses members in one save; other operations can't be batched.
    @Test func batchOperationOnARelation() async throws {
        try await TestServer.run { api in
            let a = try await api.create("Person", ["name": "a"])
            let b = try await api.create("Person", ["name": "b"])
            func pointer(_ id: String) -> JSONValue { ["__type": "Pointer", "className": "Person", "objectId": .string(id)] }
            let group = try await api.create("Group", ["members": ["__op": "AddRelation", "objects": [pointer(a)]]])
            let batch: JSONValue = [
                "__op": "Batch",
                "ops": [["__op": "AddRelation", "objects": [pointer(b)]], ["__op": "RemoveRelation", "objects": [pointer(a)]]],
            ]
            #expect(try await api.put("/1.1/classes/Group/\(group)", ["members": batch]).status == .ok)
            let related: JSONValue = [
                "$relatedTo": ["object": ["__type": "Pointer", "className": "Group", "objectId": .string(group)], "key": "members"]
            ]
            let members = try await api.results("Person", ["where": related.jsonString])
            #expect(members.compactMap { $0["name"]?.stringValue } == ["b"], "\(members)")
            let mixed: JSONValue = ["__op": "Batch", "ops": [["__op": "Increment", "amount": 1]]]
            expectError(try await api.put("/1.1/classes/Group/\(group)", ["members": mixed]), code: 107, status: .badRequest)
        }
    }

    /// A relation query that names the owner's class and `redirectClassNameForKey` (the JS
    /// SDK's `relation.query()` when it doesn't know the target) is served from the target class
    /// and says which (`className`); an owner the caller can't read redirects nothing.
    @Test func redirectClassNameForKey() async throws {
        try await TestServer.run { api in
            let ann = try await api.create("Person", ["name": "ann"])
            let member: JSONValue = ["__type": "Pointer", "className": "Person", "objectId": .string(ann)]
            let open = try await api.create("Group", ["members": ["__op": "AddRelation", "objects": [member]]])
            let closed = try await api.create(
                "Group", ["members": ["__op": "AddRelation", "objects": [member]], "ACL": [:]], headers: Headers.master)
            func query(_ group: String) -> [String: String] {
                let related: JSONValue = [
                    "$relatedTo": ["object": ["__type": "Pointer", "className": "Group", "objectId": .string(group)], "key": "members"]
                ]
                return ["where": related.jsonString, "redirectClassNameForKey": "members"]
            }
            let reply = try await api.get("/1.1/classes/Group" + queryString(query(open)))
            #expect(reply["className"] == "Person", "\(reply)")
            #expect(reply["results"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["ann"], "\(reply)")
            let hidden = try await api.get("/1.1/classes/Group" + queryString(query(closed)))
            #expect(hidden["className"] == nil && hidden["results"] == [], "\(hidden)")
        }
    }

    /// LeanEngine's platform endpoints answer as a LeanEngine does: a rejection is 400 code 1
    /// with the hook's own message, a crash 500 code 1; the storage path keeps its 142.
    @Test func platformEndpointsAnswerAsLeanEngine() async throws {
        try await TestServer.run(functions: Self.markingHooks) { api in
            let hook = Headers.make([("X-LC-Hook-Key", "hook")])
            let rejected = try await api.post("/1.1/functions/Rejecting/beforeSave", headers: hook, ["object": ["a": 1]])
            #expect(rejected.status == .badRequest && rejected.json == ["code": 1, "error": "no thanks"], "\(rejected)")
            let crashed = try await api.post("/1.1/functions/Crashing/beforeSave", headers: hook, ["object": ["a": 1]])
            #expect(crashed.status == .internalServerError && crashed["code"] == 1, "\(crashed)")
            let custom = try await api.post("/1.1/functions/Marked/beforeDelete", headers: hook, ["object": ["objectId": "x"]])
            #expect(custom.status == .badRequest && custom.json == ["code": 1, "error": "Error from beforeDelete"], "\(custom)")
            let storage = try await api.post("/1.1/classes/Rejecting", ["a": 1])
            #expect(storage["code"] == 142, "\(storage)")
        }
    }

    /// An internal function answers the master key and the hook key (the platform, its queue),
    /// never the app key.
    @Test func internalFunctionsTakeTheHookKey() async throws {
        try await TestServer.run(functions: Self.markingHooks) { api in
            expectError(try await api.post("/1.1/functions/adminOnly", [:]), code: 401, status: .unauthorized)
            expectError(try await api.post("/1.1/functions/adminOnly", headers: Self.wrongHookKey, [:]), code: 401)
            #expect(try await api.post("/1.1/functions/adminOnly", headers: Self.withHookKey, [:])["result"] == "internal")
            #expect(try await api.post("/1.1/functions/adminOnly", headers: Headers.master, [:])["result"] == "internal")
        }
    }
}

/// Settings a LeanCloud app's console held, given as server settings.
@Suite struct ConsoleSettingsTests {
    /// A column default value: a new object without the field gets it; one that gives it keeps
    /// its own (the JS suite's `Person.company`).
    @Test func columnDefaultsFillNewObjects() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.fieldDefaults = ["Person": ["company": "leancloud"]] }) {
            api in
            let created = try await api.post("/1.1/classes/Person?fetchWhenSave=true", ["pname": "dennis"])
            #expect(created["company"] == "leancloud", "\(created)")
            let own = try await api.create("Person", ["pname": "ann", "company": "acme"])
            #expect(try await api.fetch("Person", own)["company"] == "acme")
            let other = try await api.create("Pet", ["name": "rex"])
            #expect(try await api.fetch("Pet", other)["company"] == nil)
        }
    }

    /// A batch GET of a missing object answers `{"success": null}`, as LeanCloud does; a
    /// missing class answers 101.
    @Test func batchFetchOfAMissingObjectIsNull() async throws {
        try await TestServer.run { api in
            let id = try await api.create("GameScore", ["score": 1])
            let reply = try await api.post(
                "/1.1/batch",
                ["requests": [
                    ["method": "GET", "path": .string("/1.1/classes/GameScore/" + id)],
                    ["method": "GET", "path": "/1.1/classes/GameScore/fakeId"],
                    ["method": "GET", "path": .string("/1.1/classes/FakeClass/" + id)],
                ]])
            let items = try #require(reply.json?.arrayValue, "\(reply)")
            #expect(items.count == 3)
            #expect(items[0]["success"]?["score"] == 1)
            #expect(items[1] == ["success": .null], "\(items[1])")
            #expect(items[2]["error"]?["code"] == 101, "\(items[2])")
        }
    }
}

/// LeanEngine's hook request as the platform sends it: the body's `user` is the hook's
/// `request.currentUser`.
@Suite struct PlatformHookUserTests {
    @Test func theBodysUserIsTheHooksCurrentUser() async throws {
        let cloud = """
            AV.Cloud.beforeSave('Todo', function (request) {
              var user = request.currentUser;
              request.object.set('by', user ? user.get('username') : null);
              request.object.set('byId', user ? user.id : null);
            });
            """
        try await JSDataServer.run(["cloud.js": cloud]) { api in
            let hook = Headers.make([("X-LC-Hook-Key", "hook")])
            let reply = try await api.post(
                "/1.1/functions/Todo/beforeSave", headers: hook,
                ["object": ["title": "t"], "user": ["objectId": "u1", "username": "ada", "__type": "Object", "className": "_User"]])
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply["by"] == "ada" && reply["byId"] == "u1", "\(reply)")
            let anonymous = try await api.post("/1.1/functions/Todo/beforeSave", headers: hook, ["object": ["title": "t"]])
            #expect(anonymous["by"] == .null, "\(anonymous)")
        }
    }
}
