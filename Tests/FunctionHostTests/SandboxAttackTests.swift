import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The sandbox attacked over HTTP with only the app key, as the issue reports it: large params
/// that crashed the server or ran an internal function, a shared promise that made one caller's
/// queries run as another, and `useMasterKey` carried from one call to the next.
@Suite struct SandboxAttackTests {
    static let cloud = """
        AV.Cloud.define('echo', function (request) { return request.params; });
        AV.Cloud.define('adminOnly', { internal: true }, function () { return 'the internal function ran'; });

        // A single-flight loader shared by concurrent calls, as Node code often has one.
        var pending = null;
        function loadSettings() {
          if (!pending) pending = new AV.Query('Settings').find().then(function (rows) { pending = null; return rows; });
          return pending;
        }
        AV.Cloud.define('myNotes', async function (request) {
          await loadSettings();
          var options = request.currentUser ? { user: request.currentUser } : {};
          var notes = await new AV.Query('Note').find(options);
          return notes.map(function (note) { return note.get('owner'); }).sort();
        });
        AV.Cloud.define('myNotesByToken', async function (request) {
          await loadSettings();
          var notes = await new AV.Query('Note').find({ sessionToken: request.sessionToken });
          return notes.map(function (note) { return note.get('owner'); }).sort();
        });
        AV.Cloud.define('elevatedCount', function () { return new AV.Query('Note').count({ useMasterKey: true }); });
        AV.Cloud.define('switchedCount', function () {
          AV.Cloud.useMasterKey();
          return new AV.Query('Note').count();
        });
        AV.Cloud.define('plainCount', function () { return new AV.Query('Note').count(); });
        """

    /// The crash: 20 000 and 200 000 copies of an internal function's name in `echo`'s params,
    /// several rounds, with the collector forced before every step. Every answer is `echo`'s,
    /// and the server still answers afterwards.
    @Test func largeParamsAnswerTheFunctionAskedFor() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloud], configure: { $0.javaScriptCollectsGarbageBeforeEachStep = true }) { api in
            for copies in [20_000, 200_000, 1, 50_000] {
                for _ in 0..<3 {
                    let params: JSONValue = ["a": .array(Array(repeating: "adminOnly", count: copies))]
                    let reply = try await api.post("/1.1/functions/echo", headers: Headers.client, params)
                    #expect(reply.status == .ok, "\(copies) copies: \(reply.status)")
                    #expect(reply["result"]?["a"]?.arrayValue?.count == copies)
                    #expect(reply["result"] != "the internal function ran")
                }
            }
            expectError(try await api.post("/1.1/functions/adminOnly", headers: Headers.client, [:]), code: 401, status: .unauthorized)
            #expect(try await api.jsFunction("echo", ["still": "up"]) == ["still": "up"])
        }
    }

    /// Each caller of the shared-promise code gets only the rows its own identity may read,
    /// on many concurrent calls by a signed-in user and by anonymous clients.
    @Test func aSharedPromiseAnswersEachCallerItsOwnRows() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloud]) { api in
            let ada = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            _ = try await api.create("Settings", ["theme": "dark"], headers: Headers.master)
            _ = try await api.create("Note", ["owner": "public"], headers: Headers.master)
            _ = try await api.create(
                "Note", ["owner": "ada", "ACL": .object([ada: ["read": true, "write": true]])], headers: Headers.master)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<36 {
                    group.addTask {
                        let signedIn = index.isMultiple(of: 2)
                        let name = index % 4 < 2 ? "myNotes" : "myNotesByToken"
                        let headers = signedIn ? JSDataServer.session("tok-ada") : Headers.client
                        let rows = try await api.jsFunction(name, headers: headers)
                        #expect(rows == (signedIn ? ["ada", "public"] : ["public"]), "\(name) call \(index): \(rows)")
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The master key is a data call's own option: `AV.Cloud.useMasterKey()` inside a call
    /// elevates nothing, and the plain calls after it, on whichever worker, still can't read
    /// the private note.
    @Test func useMasterKeyInOneCallDoesNotLeakIntoTheNext() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloud]) { api in
            let ada = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            _ = try await api.create("Note", ["owner": "public"], headers: Headers.master)
            _ = try await api.create(
                "Note", ["owner": "ada", "ACL": .object([ada: ["read": true, "write": true]])], headers: Headers.master)
            for _ in 0..<6 {
                #expect(try await api.jsFunction("elevatedCount") == 2)
                #expect(try await api.jsFunction("switchedCount") == 1)
                #expect(try await api.jsFunction("plainCount") == 1)
            }
        }
    }

    /// 100 000 distinct class names arriving in rpc params don't reset a worker: a call in
    /// flight on the same workers meanwhile still ends with its own answer.
    @Test func distinctClassNamesDoNotResetWorkers() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloud]) { api in
            for batch in 0..<5 {
                let pointers = (0..<20_000).map { index -> JSONValue in
                    ["__type": "Pointer", "className": .string("K\(batch)_\(index)"), "objectId": "x"]
                }
                let reply = try await api.post("/1.1/call/echo", headers: Headers.client, ["list": .array(pointers)])
                #expect(reply.status == .ok, "batch \(batch): \(reply.status) \(reply.text.prefix(200))")
            }
            #expect(try await api.jsFunction("echo", ["after": true]) == ["after": true])
        }
    }
}
