import JSON
import Testing

@testable import Sandbox

/// A script stuck in a loop holds its worker until its CPU limit: the calls after it go to an
/// idle worker, or to the spare, rather than queue behind it.
@Suite struct WorkerChoiceTests {
    static let source = """
        AV.Cloud.define('spin', function () { while (true) {} });
        AV.Cloud.define('ok', function () { return 'ok'; });
        """

    @Test func aCallAfterAStuckScriptRunsOnTheSpare() async throws {
        let code = try await CloudCode(files: [("cloud.js", Self.source)], workerCount: 1, spareCount: 1)
        let spinning = Task {
            try await code.call("spin", request: ["params": [:]], cpuLimit: 3, deadline: .now + .seconds(10))
        }
        // Wait (without sleeping) until the only primary worker counts as stuck: its job has run
        // past the threshold. The loop yields; the script runs on the worker's own thread.
        while !code.isAnyWorkerStuck { await Task.yield() }
        let outcome = try await code.call("ok", request: ["params": [:]], cpuLimit: 5, deadline: .now + .seconds(10))
        #expect(try outcome.result.get() == "ok")
        // It answered while the loop still held its worker: the loop's limit is three seconds of
        // CPU, room for the spare's answer on a loaded machine (one second wasn't, under a
        // parallel build).
        #expect(code.isAnyWorkerStuck)
        await #expect(throws: ScriptError.self) { _ = try await spinning.value }
    }

    @Test func withNothingStuckTheSpareStaysIdle() async throws {
        let code = try await CloudCode(files: [("cloud.js", Self.source)], workerCount: 2, spareCount: 1)
        let spareBefore = code.jobsSubmitted(toWorker: 2)
        let primariesBefore = code.jobsSubmitted(toWorker: 0) + code.jobsSubmitted(toWorker: 1)
        for _ in 0..<20 {
            let outcome = try await code.call("ok", request: ["params": [:]], cpuLimit: 5, deadline: .now + .seconds(10))
            #expect(try outcome.result.get() == "ok")
        }
        #expect(code.jobsSubmitted(toWorker: 2) == spareBefore)
        #expect(code.jobsSubmitted(toWorker: 0) + code.jobsSubmitted(toWorker: 1) == primariesBefore + 20)
    }
}
