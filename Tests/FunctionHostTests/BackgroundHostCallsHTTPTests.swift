import Foundation
import HTTPTypes
import JSON
import Sandbox
import TestSupport
import Testing

@testable import FunctionHost

/// Attack (the last review's A1): a client calls, again and again, a function whose every call
/// leaves eight query loops running after its answer. Before the pool's gate, 64 such calls
/// queued 512 database reads ahead of plain REST reads until their 15 s bound; now their host
/// calls run 8 at a time across the pool, and a plain read is answered while they wait.
@Suite struct BackgroundHostCallsHTTPTests {
    static let script = """
        var AV = require('leanengine');

        AV.Cloud.define('floodQueries', function () {
          for (var i = 0; i < 8; i++) (function loop() { new AV.Query('Todo').find().then(loop, loop); })();
          return 'flooding';
        });
        """

    /// The pool's background host calls, as `/metrics` gives them: running and waiting.
    static func gate(_ api: API) async throws -> (running: Double, waiting: Double) {
        let text = try await api.get("/metrics", headers: Headers.master).text
        let sample = { (state: String) in
            MetricsTests.sample(
                text, "functionhost_sandbox_background_host_calls", #"environment="production""#, #"state="\#(state)""#) ?? -1
        }
        return (sample("running"), sample("waiting"))
    }

    @Test func loopingBackgroundQueriesWaitTheirTurnAndAPlainReadIsAnswered() async throws {
        let configure: (inout HostConfiguration) -> Void = {
            // Long enough that the loops are still going when the read is made, however loaded
            // the machine; the gate keeps its default (8).
            $0.javaScriptPool.backgroundTime = .seconds(30)
            // Calls behind the client's lease wait for it rather than meet the 5 s line limit.
            $0.javaScriptPool.queueWait = .seconds(120)
        }
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script], configure: configure) {
            api, _ in
            let todo = try await api.create("Todo", ["title": "read me"], headers: Headers.master)
            for _ in 0..<16 {
                let reply = try await api.post("/1.1/functions/floodQueries", headers: Headers.client, [:])
                #expect(reply["result"] == "flooding", "\(reply)")
            }
            // 128 loops, at most 8 of their queries running: the rest wait at the gate.
            var gate = try await Self.gate(api)
            let giveUp = ContinuousClock.now + .seconds(60)
            while gate.waiting < 1, ContinuousClock.now < giveUp {
                try await Task.sleep(for: .milliseconds(5))
                gate = try await Self.gate(api)
            }
            #expect(gate.waiting >= 1, "the loops' queries never waited at the gate: \(gate)")
            let read = try await api.get("/1.1/classes/Todo", headers: Headers.client)
            #expect(read.status == .ok && read.results.map { $0["objectId"] } == [.string(todo)], "\(read)")
            for _ in 0..<5 {
                gate = try await Self.gate(api)
                #expect(gate.running >= 0 && gate.running <= 8, "\(gate)")
            }
        }
    }
}
