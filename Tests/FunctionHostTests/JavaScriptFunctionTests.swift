import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import FunctionHost

/// JavaScript cloud code from a functions directory, called over real HTTP.
@Suite struct JavaScriptFunctionTests {
    /// The shipped example (functions/js/cloud.js) plus hostile and edge-case scripts.
    static let scripts: [String: String] = [
        "hostile.js": """
            AV.Cloud.define('spin', function () { while (true) {} });
            AV.Cloud.define('recurse', function () { function f() { return f() + 1 } return f() });
            AV.Cloud.define('crash', function () { return undefinedVariable.x });
            AV.Cloud.define('refuse', function () { throw new AV.Cloud.Error('Not today.', { code: 123, status: 409 }) });
            AV.Cloud.define('refuseText', function (request, response) { response.error('plain text refusal') });
            AV.Cloud.define('never', function () { return new Promise(function () {}) });
            AV.Cloud.define('secret', { internal: true }, function () { return 'internal' });
            AV.Cloud.define('chain', async function (request) { return await AV.Cloud.run('helloJS', { name: 'run' }) });
            AV.Cloud.define('big', function () { var a = []; for (var i = 0; i < 100000; i++) a.push(i); return a.length });
            AV.Cloud.define('requireOther', function () { return require('fs') });
            AV.Cloud.define('hog', function () { var a = []; while (true) a.push(new Array(100000).fill(7)) });
            AV.Cloud.define('huge', function () { return 'x'.repeat(9 << 20) });
            AV.Cloud.define('tick', function () { return new Promise(function (done) { setTimeout(done, 5, 'tock') }) });
            """,
        "broken.js": "AV.Cloud.define('neverLoaded', function () {});\n\n  this is not javascript",
        "throwsAtLoad.js": "throw new Error('load failure')",
    ]

    /// A server loading the scripts above beside the shipped example. Calls time out after two
    /// seconds unless told: the scripts that never end end soon, and an ordinary call still ends
    /// in time on a machine loaded by the tests running in parallel.
    static func withScripts<Value: Sendable>(
        javaScriptTimeout: Duration = .seconds(2), _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, source) in scripts {
            try source.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../functions/js/cloud.js")
        try FileManager.default.copyItem(atPath: example.path, toPath: directory + "/cloud.js")
        return try await TestServer.run(
            dataDirectory: directory, functionsDirectory: directory, javaScriptTimeout: javaScriptTimeout, body)
    }

    @Test func theShippedLeanEngineExampleRunsUnchanged() async throws {
        try await Self.withScripts(javaScriptTimeout: .seconds(20)) { api in
            #expect(try await api.post("/1.1/functions/helloJS", ["name": "Ada"]).json == ["result": "Hello, Ada!"])
            #expect(try await api.get("/1.1/functions/helloJS").json == ["result": "Hello, world!"])
            let average = try await api.post("/1.1/call/averageStars", ["ratings": [3, 4, 5]])
            #expect(average.json == ["result": 4], "\(average)")
            expectError(try await api.post("/1.1/functions/averageStars", ["ratings": []]), code: 400, status: .badRequest)
            let legacy = try await api.post("/1.1/functions/legacyEcho", ["x": [1, "two"]])
            #expect(legacy.json == ["result": ["echoed": ["x": [1, "two"]]]], "\(legacy)")
            let chained = try await api.post("/1.1/functions/chain", [:])
            #expect(chained.json == ["result": "Hello, run!"], "AV.Cloud.run calls in process: \(chained)")
        }
    }

    @Test func errorsAnswerTheDocumentedStatusAndCode() async throws {
        try await Self.withScripts { api in
            expectError(try await api.post("/1.1/functions/refuse", [:]), code: 123, status: .conflict)
            expectError(try await api.post("/1.1/functions/refuseText", [:]), code: 1, status: .badRequest)
            let crash = try await api.post("/1.1/functions/crash", [:])
            #expect(crash.status == .internalServerError)
            #expect(crash["code"] == 141)
            #expect(crash["error"]?.stringValue?.contains("undefinedVariable") == true, "\(crash)")
            let never = try await api.post("/1.1/functions/never", [:])
            #expect(never.status == .serviceUnavailable, "a promise that never settles ends at the deadline: \(never)")
            #expect(never["code"] == 124)
            let other = try await api.post("/1.1/functions/requireOther", [:])
            #expect(other["error"]?.stringValue?.contains("fs") == true, "the module is named: \(other)")
            expectError(try await api.post("/1.1/functions/secret", [:]), code: 401, status: .unauthorized)
            #expect(try await api.post("/1.1/functions/secret", headers: Headers.master, [:]).json == ["result": "internal"])
        }
    }

    @Test func hostileScriptsCostOnlyTheirCaller() async throws {
        try await Self.withScripts { api in
            let spin = try await api.post("/1.1/functions/spin", [:])
            #expect(spin.status == .serviceUnavailable, "\(spin)")
            #expect(spin["code"] == 124)
            let recurse = try await api.post("/1.1/functions/recurse", [:])
            #expect(recurse["code"] == 141)
            #expect(recurse["error"]?.stringValue?.contains("RangeError") == true, "\(recurse)")
            #expect(try await api.post("/1.1/functions/helloJS", [:]).json == ["result": "Hello, world!"])
        }
        // Memory is limited by its own ceiling, whatever the time: with a deadline far off, a
        // loaded machine (tests run in parallel) can't turn the ceiling's 500 into a timeout.
        try await Self.withScripts(javaScriptTimeout: .seconds(20)) { api in
            #expect(try await api.post("/1.1/functions/big", [:]).json == ["result": 100000])
            let hog = try await api.post("/1.1/functions/hog", [:])
            #expect(hog.status == .internalServerError && hog["code"] == 141, "\(hog)")
            #expect(hog["error"]?.stringValue?.contains("ceiling") == true, "\(hog)")
            let huge = try await api.post("/1.1/functions/huge", [:])
            #expect(huge["code"] == 141 && huge["error"]?.stringValue?.contains("allowed") == true, "\(huge)")
            #expect(try await api.post("/1.1/functions/tick", [:]).json == ["result": "tock"], "timers work")
            // After each, the next call succeeds.
            #expect(try await api.post("/1.1/functions/helloJS", [:]).json == ["result": "Hello, world!"])
        }
    }

    @Test func filesThatFailToLoadAreSkippedAndTheRestServes() async throws {
        try await Self.withScripts { api in
            let names = try await api.get("/1.1/functions/_ops/metadatas", headers: Headers.master)
            let list = names["result"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(list.contains("helloJS") && list.contains("spin"))
            #expect(!list.contains("neverLoaded"), "a file with a syntax error defines nothing")
            expectError(try await api.post("/1.1/functions/neverLoaded", [:]), code: 1, status: .notFound)
        }
    }
}
