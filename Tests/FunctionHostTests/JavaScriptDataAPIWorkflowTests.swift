import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// JavaScript functions that call other functions, write conditionally and in batches, run
/// concurrently and wait on timers between data calls.
@Suite struct JavaScriptDataAPIWorkflowTests {
    static let running = """
        var AV = require('leanengine');

        AV.Cloud.define('double', function (request) { return request.params.n * 2; });
        AV.Cloud.define('callbackDouble', function (request, response) { response.success(request.params.n * 2); });

        AV.Cloud.define('runJS', async function () {
          return { double: await AV.Cloud.run('double', { n: 21 }), callback: await AV.Cloud.run('callbackDouble', { n: 5 }) };
        });

        AV.Cloud.define('runSwift', async function () {
          var greeting = await AV.Cloud.run('swiftGreeting', { name: 'Ada' });
          var echoed = await AV.Cloud.run('swiftEcho', { list: [1, 'two', null], nested: { ok: true }, ratio: 0.5 });
          var who = await AV.Cloud.run('swiftWho', {});
          var refusal = null, missing = null;
          try { await AV.Cloud.run('swiftRefuses', {}); } catch (e) { refusal = { code: e.code, message: e.message }; }
          try { await AV.Cloud.run('noSuchFunction', {}); } catch (e) { missing = e.code; }
          return { greeting: greeting, echoed: echoed, who: who, refusal: refusal, missing: missing };
        });
        """

    static var swiftFunctions: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.define("swiftGreeting") { request -> JSONValue in
            .string("Hello from Swift, \(request.params["name"]?.stringValue ?? "nobody")!")
        }
        registry.define("swiftEcho") { request in request.params }
        registry.define("swiftWho") { request -> JSONValue in request.currentUser?["username"] ?? .null }
        registry.define("swiftRefuses") { _ -> JSONValue in
            throw CloudError(code: 123, message: "Swift says no.", status: .conflict)
        }
        return registry
    }

    @Test func avCloudRunCallsJavaScriptAndSwiftFunctions() async throws {
        try await JSDataServer.run(["run.js": Self.running], functions: Self.swiftFunctions) { api in
            #expect(try await api.jsFunction("runJS") == ["double": 42, "callback": 10])
            _ = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            let result = try await api.jsFunction("runSwift", headers: JSDataServer.session("tok-ada"))
            #expect(result["greeting"] == "Hello from Swift, Ada!", "\(result)")
            #expect(result["echoed"] == ["list": [1, "two", nil], "nested": ["ok": true], "ratio": 0.5], "\(result)")
            #expect(result["who"] == "ada", "the Swift function serves the same caller: \(result)")
            #expect(result["refusal"] == ["code": 123, "message": "Swift says no."], "\(result)")
            #expect(result["missing"] == 1, "\(result)")
            #expect(try await api.jsFunction("runSwift")["who"] == .null, "no session, no user")
        }
    }

    static let writes = """
        var AV = require('leanengine');

        // LeanCloud's guide: debit an account only while its balance covers the amount.
        AV.Cloud.define('withdraw', async function (request) {
          var account = await new AV.Query('Account').get(request.params.id);
          account.increment('balance', -request.params.amount);
          var query = new AV.Query('Account');
          query.greaterThanOrEqualTo('balance', request.params.amount);
          try {
            await account.save(null, { query: query, fetchWhenSave: true });
            return { saved: true, balance: account.get('balance') };
          } catch (error) {
            return { saved: false, code: error.code, isAVError: error instanceof AV.Error };
          }
        });

        AV.Cloud.define('closeIfEmpty', async function (request) {
          var account = AV.Object.createWithoutData('Account', request.params.id);
          try {
            await account.destroy({ query: new AV.Query('Account').equalTo('balance', 0) });
            return 'closed';
          } catch (error) {
            return error.code;
          }
        });

        AV.Cloud.define('saveMany', async function (request) {
          var tags = request.params.names.map(function (name, i) { return new AV.Object('Tag', { name: name, order: i }); });
          await AV.Object.saveAll(tags);
          return tags.map(function (tag) { return tag.id; });
        });

        AV.Cloud.define('destroyMany', async function (request) {
          var tags = request.params.ids.map(function (id) { return AV.Object.createWithoutData('Tag', id); });
          await AV.Object.destroyAll(tags);
          return tags.length;
        });

        AV.Cloud.define('destroyByQuery', async function (request) {
          var destroyed = await new AV.Query('Tag').equalTo('name', request.params.name).destroyAll();
          return destroyed.length;
        });
        """

    @Test func conditionalSavesFailWithCode305() async throws {
        try await JSDataServer.run(["writes.js": Self.writes]) { api in
            let account = try await api.create("Account", ["balance": 100])
            #expect(try await api.jsFunction("withdraw", ["id": .string(account), "amount": 30]) == ["saved": true, "balance": 70])
            #expect(try await api.fetch("Account", account)["balance"] == 70)
            let refused = try await api.jsFunction("withdraw", ["id": .string(account), "amount": 80])
            #expect(refused == ["saved": false, "code": 305, "isAVError": true], "\(refused)")
            #expect(try await api.fetch("Account", account)["balance"] == 70, "the refused update wrote nothing")

            #expect(try await api.jsFunction("closeIfEmpty", ["id": .string(account)]) == 305)
            #expect(try await api.fetch("Account", account)["balance"] == 70, "the refused delete kept the object")
            #expect(try await api.jsFunction("withdraw", ["id": .string(account), "amount": 70]) == ["saved": true, "balance": 0])
            #expect(try await api.jsFunction("closeIfEmpty", ["id": .string(account)]) == "closed")
            #expect(try await api.fetch("Account", account) == [:])
        }
    }

    @Test func saveAllAndDestroyAll() async throws {
        try await JSDataServer.run(["writes.js": Self.writes]) { api in
            let saved = try await api.jsFunction("saveMany", ["names": ["a", "b", "c", "d"]])
            let ids = try #require(saved.arrayValue?.compactMap { $0.stringValue }, "\(saved)")
            try #require(ids.count == 4 && Set(ids).count == 4, "\(saved)")
            #expect(try await api.count("Tag") == 4)
            for (index, id) in ids.enumerated() {
                let tag = try await api.fetch("Tag", id)
                #expect(tag["name"] == .string(["a", "b", "c", "d"][index]) && tag["order"] == .int(Int64(index)), "\(tag)")
            }

            #expect(try await api.jsFunction("destroyMany", ["ids": [.string(ids[0]), .string(ids[1])]]) == 2)
            #expect(try await api.count("Tag") == 2)
            #expect(try await api.fetch("Tag", ids[0]) == [:])
            #expect(try await api.fetch("Tag", ids[1]) == [:])
            #expect(try await api.jsFunction("destroyByQuery", ["name": "c"]) == 1)
            let left = try await api.results("Tag")
            #expect(left.compactMap { $0["objectId"]?.stringValue } == [ids[3]], "\(left)")
        }
    }

    static let hooked = """
        var AV = require('leanengine');

        AV.Cloud.beforeSave('Todo', function (request) {
          var title = request.object.get('title');
          if (!title) throw new AV.Cloud.Error('A todo needs a title.');
          request.object.set('slug', title.toLowerCase().split(' ').join('-'));
        });

        AV.Cloud.beforeSave('Fee', function () {
          throw new AV.Cloud.Error('No fees today.', { code: 600 });
        });

        AV.Cloud.define('add', async function (request) {
          var object = new AV.Object(request.params.className, request.params.fields);
          try {
            await object.save();
            return { id: object.id, slug: object.get('slug') };
          } catch (error) {
            return { code: error.code, message: error.message, isAVError: error instanceof AV.Error };
          }
        });
        """

    @Test func writesFromAFunctionRunTheClassHooks() async throws {
        try await JSDataServer.run(["hooked.js": Self.hooked]) { api in
            let added = try await api.jsFunction("add", ["className": "Todo", "fields": ["title": "Buy Milk"]])
            let id = try #require(added["id"]?.stringValue, "\(added)")
            #expect(added["slug"] == "buy-milk", "the hook's change is in the saved object: \(added)")
            #expect(try await api.fetch("Todo", id)["slug"] == "buy-milk")

            // A rejection reaches the script with the code a client would get: 142, or the hook's own.
            let rejected = try await api.jsFunction("add", ["className": "Todo", "fields": ["done": false]])
            #expect(rejected["code"] == 142 && rejected["isAVError"] == true, "\(rejected)")
            #expect(rejected["message"]?.stringValue?.contains("A todo needs a title.") == true, "\(rejected)")
            expectError(try await api.post("/1.1/classes/Todo", ["done": false]), code: 142)
            let fee = try await api.jsFunction("add", ["className": "Fee", "fields": ["amount": 5]])
            #expect(fee["code"] == 600 && fee["message"] == "No fees today.", "\(fee)")
            expectError(try await api.post("/1.1/classes/Fee", ["amount": 5]), code: 600)
            #expect(try await api.count("Todo") == 1)
            #expect(try await api.count("Fee") == nil, "nothing was written")

            // The object a hook hands back keeps its Pointer fields Pointers, whoever wrote it.
            let project = try await api.create("Project", ["name": "Apollo"])
            let viaREST = try await api.create("Todo", ["title": "Via REST", "project": pointer("Project", project)])
            #expect(try await api.fetch("Todo", viaREST)["project"] == pointer("Project", project))
            let viaJS = try await api.jsFunction(
                "add", ["className": "Todo", "fields": ["title": "Via JS", "project": pointer("Project", project)]])
            let viaJSId = try #require(viaJS["id"]?.stringValue, "\(viaJS)")
            #expect(try await api.fetch("Todo", viaJSId)["project"] == pointer("Project", project))
        }
    }

    @Test func concurrentCallsAllWrite() async throws {
        let source = """
            var AV = require('leanengine');
            AV.Cloud.define('addAndCount', async function (request) {
              var hit = new AV.Object('Hit', { n: request.params.n });
              await hit.save();
              var count = await new AV.Query('Hit').count();
              var mine = await new AV.Query('Hit').equalTo('n', request.params.n).find();
              return { id: hit.id, count: count, mine: mine.length, n: mine[0].get('n') };
            });
            """
        try await JSDataServer.run(["hits.js": source]) { api in
            let results = try await withThrowingTaskGroup(of: (Int, Reply).self) { group in
                for n in 0..<20 {
                    group.addTask { (n, try await api.post("/1.1/functions/addAndCount", ["n": .int(Int64(n))])) }
                }
                var replies: [(Int, Reply)] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            #expect(results.count == 20)
            var ids = Set<String>()
            for (n, reply) in results {
                #expect(reply.status == .ok, "call \(n): \(reply)")
                let result = reply["result"]
                #expect(result?["mine"] == 1 && result?["n"] == .int(Int64(n)), "call \(n): \(reply)")
                let count = result?["count"]?.intValue ?? 0
                #expect((1...20).contains(count), "call \(n) counted its own write: \(reply)")
                if let id = result?["id"]?.stringValue { ids.insert(id) }
            }
            #expect(ids.count == 20, "every call created its own object")
            #expect(try await api.count("Hit") == 20)
            let stored = try await api.results("Hit", ["limit": "100"])
            #expect(Set(stored.compactMap { $0["n"]?.intValue }) == Set(0..<20), "\(stored)")
        }
    }

    @Test func timersBetweenDataCalls() async throws {
        let source = """
            var AV = require('leanengine');
            AV.Cloud.define('timedSteps', async function () {
              var step = new AV.Object('Step', { n: 0 });
              await new Promise(function (resolve) { setTimeout(resolve, 5); });
              await step.save();
              await new Promise(function (resolve) { setTimeout(resolve, 5); });
              step.increment('n', 2);
              step.add('log', 'second');
              await step.save();
              var fromTimer = await new Promise(function (resolve, reject) {
                setTimeout(function () {
                  new AV.Query('Step').get(step.id).then(function (loaded) { resolve(loaded.get('n')); }, reject);
                }, 1);
              });
              return { id: step.id, n: step.get('n'), log: step.get('log'), fromTimer: fromTimer };
            });
            """
        try await JSDataServer.run(["timers.js": source]) { api in
            let result = try await api.jsFunction("timedSteps")
            let id = try #require(result["id"]?.stringValue, "\(result)")
            #expect(result["n"] == 2 && result["log"] == ["second"] && result["fromTimer"] == 2, "\(result)")
            let stored = try await api.fetch("Step", id)
            #expect(stored["n"] == 2 && stored["log"] == ["second"], "\(stored)")
            #expect(try await api.count("Step") == 1, "the second save updated the object the first created")
        }
    }
}
