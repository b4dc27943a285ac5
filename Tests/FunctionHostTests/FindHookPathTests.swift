import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 30, item 7: a class's find hooks hold whichever way the class is queried. `Secret`
/// is narrowed by JavaScript hooks, `Vault` by Swift ones: `beforeFind` hides the rows not
/// `visible`, `afterFind` removes `pin`. Before, CQL and cloud code's counts read past them.
@Suite struct FindHookPathTests {
    static let script = """
        AV.Cloud.beforeFind('Secret', function (request) { request.query.equalTo('visible', true); });
        AV.Cloud.afterFind('Secret', function (request) {
          request.objects.forEach(function (object) { object.unset('pin'); });
        });
        AV.Cloud.define('countJS', function (request) { return new AV.Query(request.params.className).count(); });
        AV.Cloud.define('getJS', function (request) {
          return new AV.Query(request.params.className).get(request.params.id).then(function (object) {
            return object.get('name');
          }, function (error) { return error.code; });
        });
        AV.Cloud.define('findJS', function (request) {
          return new AV.Query(request.params.className).ascending('name').find().then(function (found) {
            return found.map(function (object) { return [object.get('name'), object.get('pin') === undefined]; });
          });
        });
        """

    /// Swift hooks on `Vault` that do what the JavaScript ones do on `Secret`, and a Swift
    /// function that finds through its data API.
    static var functions: FunctionRegistry {
        var functions = FunctionRegistry()
        functions.hooks.beforeFind("Vault") { request in
            let asked = request.object["where"] ?? [:]
            request.object["where"] = ["$and": [asked, ["visible": true]]]
            // A hook that widens the window: a count must stay a count all the same.
            request.object["limit"] = 1000
        }
        functions.hooks.afterFind("Vault") { request in
            request.results = request.results.map { object in
                var object = object
                object.fields["pin"] = nil
                return object
            }
        }
        functions.define("findSwift") { request -> [String] in
            let className = request.params["className"]?.stringValue ?? ""
            let found = try await request.data.find(className, order: [SortKey(key: "name", descending: false)])
            return found.map { ($0.fields["name"]?.stringValue ?? "") + ($0.fields["pin"] == nil ? "" : "+pin") }
        }
        functions.define("getSwift") { request -> String in
            let className = request.params["className"]?.stringValue ?? ""
            let found = try await request.data.fetch(className, id: request.params["id"]?.stringValue ?? "")
            return found?.fields["name"]?.stringValue ?? "missing"
        }
        return functions
    }

    /// A server with both classes holding a, b (hidden) and c, each with a pin; the body gets
    /// the ids by class and name.
    static func run(_ body: @Sendable (API, [String: [String: String]]) async throws -> Void) async throws {
        try await EdgeFixture.run(functions: functions, scripts: ["cloud.js": script]) { api, _ in
            var ids: [String: [String: String]] = [:]
            for className in ["Secret", "Vault"] {
                for (name, visible) in [("a", true), ("b", false), ("c", true)] {
                    ids[className, default: [:]][name] = try await api.create(
                        className, ["name": .string(name), "visible": .bool(visible), "pin": 1234])
                }
            }
            try await body(api, ids)
        }
    }

    static func cql(_ api: API, _ statement: String) async throws -> Reply {
        let encoded = statement.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? statement
        return try await api.get("/1.1/cloudQuery?cql=\(encoded)")
    }

    @Test(arguments: ["Secret", "Vault"])
    func cqlRunsTheFindHooks(className: String) async throws {
        try await Self.run { api, _ in
            let all = try await Self.cql(api, "select * from \(className) order by name")
            #expect(all.status == .ok, "\(all)")
            #expect(all.results.map { $0["name"] } == ["a", "c"], "beforeFind hides b: \(all)")
            #expect(all.results.allSatisfy { $0["pin"] == nil }, "afterFind removes the pin: \(all)")
            // Asking for the hidden rows finds none of them (the JavaScript hook replaces the
            // condition on `visible`, the Swift one adds to it).
            let hidden = try await Self.cql(api, "select name, pin from \(className) where visible = false")
            #expect(hidden.status == .ok, "\(hidden)")
            #expect(hidden.results.allSatisfy { $0["name"] != "b" && $0["pin"] == nil }, "\(hidden)")
            let counted = try await Self.cql(api, "select count(*) from \(className)")
            #expect(counted["count"] == 2 && counted.results.isEmpty, "\(counted)")
            let both = try await Self.cql(api, "select count(*), * from \(className) where name in ('a', 'b')")
            #expect(both["count"] == 1 && both.results.map { $0["name"] } == ["a"], "\(both)")
        }
    }

    @Test(arguments: ["Secret", "Vault"])
    func countsAndCloudCodeQueriesRunTheFindHooks(className: String) async throws {
        try await Self.run { api, _ in
            let rest = try await api.find(className, ["count": "1", "limit": "0"])
            #expect(rest["count"] == 2, "\(rest)")
            let batch = try await api.post(
                "/1.1/batch", ["requests": [["method": "GET", "path": .string("/1.1/classes/\(className)"), "params": ["count": 1]]]])
            let answered = batch.json?.arrayValue?.first?["success"]
            #expect(answered?["count"] == 2 && answered?["results"]?.arrayValue?.count == 2, "\(batch)")
            let countedJS = try await api.post("/1.1/functions/countJS", ["className": .string(className)])
            #expect(countedJS["result"] == 2, "a script's count is narrowed too: \(countedJS)")
            let foundJS = try await api.post("/1.1/functions/findJS", ["className": .string(className)])
            #expect(foundJS["result"] == [["a", true], ["c", true]], "\(foundJS)")
            let foundSwift = try await api.post("/1.1/functions/findSwift", ["className": .string(className)])
            #expect(foundSwift["result"] == ["a", "c"], "\(foundSwift)")
        }
    }

    @Test(arguments: ["Secret", "Vault"])
    func getsByIdRunTheFindHooks(className: String) async throws {
        try await Self.run { api, ids in
            let (shown, hidden) = (try #require(ids[className]?["a"]), try #require(ids[className]?["b"]))
            #expect(try await api.fetch(className, hidden) == [:], "beforeFind hides b from a get too")
            let a = try await api.fetch(className, shown)
            #expect(a["name"] == "a" && a["pin"] == nil, "\(a)")
            let batch = try await api.post(
                "/1.1/batch", ["requests": [["method": "GET", "path": .string("/1.1/classes/\(className)/\(hidden)")]]])
            #expect(batch.json == [["success": nil]], "\(batch)")
            let script = try await api.post("/1.1/functions/getJS", ["className": .string(className), "id": .string(hidden)])
            #expect(script["result"] == 101, "\(script)")
            let swift = try await api.post("/1.1/functions/getSwift", ["className": .string(className), "id": .string(hidden)])
            #expect(swift["result"] == "missing", "\(swift)")
        }
    }

    @Test func theHooksRunForTheMasterKeysCQLToo() async throws {
        try await Self.run { api, _ in
            // As for a master key's REST find: the hooks are the app's, not the client's.
            let statement = "select count(*), * from Vault".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let master = try await api.get("/1.1/cloudQuery?cql=" + statement, headers: Headers.master)
            #expect(master["count"] == 2 && master.results.count == 2, "\(master)")
            let rest = try await api.find("Vault", ["count": "1", "limit": "0"], headers: Headers.master)
            #expect(rest["count"] == 2 && rest.results.isEmpty, "a count stays a count: \(rest)")
        }
    }
}

/// Issue 30, item 8: a skip list in what a function saves (the client's params) skips no hook.
/// Only the code's own choice (`ignoreHook`, `disableBeforeHook`, `withoutHooks`) does.
@Suite struct IgnoreHooksInParamsTests {
    static let script = """
        AV.Cloud.beforeSave('Guarded', function (request) {
          if (request.object.get('valid') !== true) throw new AV.Cloud.Error('Not valid.', { code: 142 });
        });
        AV.Cloud.beforeUpdate('Guarded', function (request) {
          if (request.object.get('valid') !== true) throw new AV.Cloud.Error('Not valid.', { code: 142 });
        });
        AV.Cloud.define('saveIt', function (request) {
          return new AV.Object('Guarded', request.params).save().then(function (object) { return object.id; });
        });
        AV.Cloud.define('updateIt', function (request) {
          var params = Object.assign({}, request.params);
          var id = params.id;
          delete params.id;
          return AV.Object.createWithoutData('Guarded', id).save(params).then(function (object) { return object.id; });
        });
        AV.Cloud.define('saveOnPurpose', function (request) {
          var object = new AV.Object('Guarded', { valid: false });
          object.disableBeforeHook();
          return object.save().then(function (saved) { return saved.id; });
        });
        """

    static var functions: FunctionRegistry {
        var functions = FunctionRegistry()
        functions.define("saveItSwift") { request -> String in
            try await request.data.create("Guarded", request.params.objectValue ?? [:]).objectId
        }
        return functions
    }

    static let skipEverything: JSONValue = [
        "beforeSave", "beforeUpdate", "afterSave", "afterUpdate", "beforeDelete", "afterDelete",
    ]

    @Test(arguments: ["saveIt", "saveItSwift"])
    func aClientsSkipListInParamsSkipsNoHook(function: String) async throws {
        try await EdgeFixture.run(functions: Self.functions, scripts: ["cloud.js": Self.script]) { api, _ in
            for skip in ["__ignore_hooks", "_ignore_hooks"] {
                for headers in [Headers.client, Headers.master] {
                    let reply = try await api.post(
                        "/1.1/functions/\(function)", headers: headers, [skip: Self.skipEverything, "valid": false])
                    #expect(reply.status != .ok && reply.text.contains("Not valid."), "\(skip): \(reply)")
                }
            }
            #expect(try await api.find("Guarded", headers: Headers.master).results.isEmpty, "nothing was written")
            // A valid save passes, and no skip list became a field.
            let saved = try await api.post("/1.1/functions/\(function)", ["__ignore_hooks": ["beforeSave"], "valid": true])
            let id = try #require(saved["result"]?.stringValue, "\(saved)")
            let stored = try await api.fetch("Guarded", id, headers: Headers.master)
            #expect(stored["__ignore_hooks"] == nil && stored["valid"] == true, "\(stored)")
        }
    }

    @Test func aClientsSkipListInAnUpdateSkipsNoHook() async throws {
        try await EdgeFixture.run(functions: Self.functions, scripts: ["cloud.js": Self.script]) { api, _ in
            let id = try #require(try await api.post("/1.1/functions/saveIt", ["valid": true])["result"]?.stringValue)
            let reply = try await api.post("/1.1/functions/updateIt", ["id": .string(id), "__ignore_hooks": ["beforeUpdate"], "valid": false])
            #expect(reply.status != .ok && reply.text.contains("Not valid."), "\(reply)")
            #expect(try await api.fetch("Guarded", id, headers: Headers.master)["valid"] == true)
        }
    }

    @Test func codeStillSkipsHooksOnPurpose() async throws {
        try await EdgeFixture.run(functions: Self.functions, scripts: ["cloud.js": Self.script]) { api, _ in
            let saved = try await api.post("/1.1/functions/saveOnPurpose", [:])
            let id = try #require(saved["result"]?.stringValue, "\(saved)")
            #expect(try await api.fetch("Guarded", id, headers: Headers.master)["valid"] == false)
        }
    }
}
