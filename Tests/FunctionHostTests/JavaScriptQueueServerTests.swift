import CloudQueue
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `AV.Cloud.enqueue` in a function a client calls over HTTP, run by the server's own queue
/// (its clock moved by hand), and the status polled as LeanEngine's SDK polls it.
@Suite struct JavaScriptQueueServerTests {
    @Test func aFunctionCalledOverHTTPQueuesATaskTheHostRunsAsTheMaster() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            AV.Cloud.define('work', function (request) { return 'did ' + request.params.a + ' as ' + (request.currentUser ? 'user' : 'master'); });
            AV.Cloud.define('enqueue', function (request) {
              return AV.Cloud.enqueue('work', { a: 1 }, { attempts: 2, backoff: 1000, delay: 0, uniqueId: 'x' });
            });
            AV.Cloud.define('info', async function (request) {
              var info = await AV.Cloud.getTaskInfo('x');
              return { status: info.status, result: info.result, finishedIsDate: info.finishedAt instanceof Date };
            });
            """.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        let fixture = QueueFixture()
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory, configure: fixture.configure) { api in
            // A client's call (the app key, no master key) of the function that enqueues.
            let queued = try await api.post("/1.1/functions/enqueue", headers: Headers.client, [:])
            #expect(queued.status == .ok && queued["result"] == ["uniqueId": "x"], "\(queued)")
            let attempts = await fixture.waitForAttempts("x", count: 1)
            #expect(attempts.map(\.outcome) == [.success])
            let info = try await api.post("/1.1/functions/info", headers: Headers.client, [:])
            #expect(info["result"] == ["status": "success", "result": "did 1 as master", "finishedIsDate": true], "\(info)")
        }
    }
}
