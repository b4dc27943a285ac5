import DataAPI
import Foundation
import HTTPTypes
import Logging
import TestSupport
import Testing

@testable import FunctionHost

/// One log line per request, function output tagged with its function, environment, version and
/// request, and the recent lines of each environment through the API and `functionhost logs`.
@Suite struct LogTests {
    static let cloudCode = """
        AV.Cloud.define('greet', function (request) { console.log('greeting ' + request.params.name); return 'hi'; });
        AV.Cloud.beforeSave('Note', function (request) { console.warn('checking a note'); });
        """

    @Test func requestsAndFunctionOutputAreLoggedWithTheirRequestId() async throws {
        let log = CapturedLog()
        var logger = Logger(label: "functionhost", factory: { _ in log.handler })
        logger.logLevel = .info
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.cloudCode.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory, logger: logger) { api in
            let reply = try await api.post("/1.1/functions/greet", ["name": "ann"])
            #expect(reply["result"] == "hi")
        }
        let lines = log.lines
        let output = try #require(lines.first { $0.contains("greeting ann") }, "\(lines)")
        for tag in [#""function": greet"#, #""environment": production"#, #""version": 1"#] {
            #expect(output.contains(tag), "\(output)")
        }
        let id = try #require(output.firstMatch(of: /"hb.request.id": ([0-9a-f]+)/)?.output.1, "\(output)")
        let request = try #require(lines.first { $0.contains("info request ") && $0.contains(#""hb.request.id": \#(id)"#) }, "\(lines)")
        for tag in [#""route": /1.1/functions/{name}"#, #""status": 200"#, #""method": POST"#, #""environment": production"#, #""ms": "#] {
            #expect(request.contains(tag), "\(request)")
        }
    }

    @Test func recentLinesAreReadByEnvironmentThroughTheAPIAndTheCommand() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.cloudCode.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        // The command reads them from a server it reaches over HTTP.
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory, transport: .socket) { api in
            _ = try await api.post("/1.1/functions/greet", ["name": "ann"])
            _ = try await api.post("/1.1/classes/Note", ["text": "x"])
            let staging = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Prod", "0")])
            _ = try await api.post("/1.1/functions/greet", headers: staging, ["name": "bob"])

            expectError(try await api.get("/1.1/engine/logs"), code: 401, status: .unauthorized)
            let production = try await api.get("/1.1/engine/logs?environment=production", headers: Headers.master)
            #expect(production.results.map { $0["message"] } == ["greeting ann", "checking a note"], "\(production)")
            #expect(production.results.map { $0["source"] } == ["greet", "beforeSave:Note"])
            #expect(production.results.first?["metadata"]?["version"] == "1")
            #expect(production.results.last?["level"] == "warning")
            let stagingLines = try await api.get("/1.1/engine/logs?environment=staging", headers: Headers.master)
            #expect(stagingLines.results.map { $0["message"] } == ["greeting bob"], "\(stagingLines)")
            // Only what is newer than a line already seen.
            let first = try #require(production.results.first?["sequence"]?.intValue)
            let newer = try await api.get("/1.1/engine/logs?after=\(first)", headers: Headers.master)
            #expect(newer.results.map { $0["message"] } == ["checking a note"])
            expectError(try await api.get("/1.1/engine/logs?limit=0", headers: Headers.master), code: 107)

            let printed = try await CLI.functionhost(["logs", "--env", "staging"], port: api.port)
            #expect(printed.status == 0 && printed.output.contains("info greet: greeting bob"), "\(printed)")
        }
    }
}
