import JSON
import Synchronization
import Testing

@testable import Sandbox

/// A host that counts the operations running in it at once. `Park` calls wait until their task
/// is cancelled; a `Hold` call answers once a `Late` call has arrived, a `Held` call once the
/// test releases it, and the `Late` call once the `Held` one has answered; others answer after
/// a turn of the scheduler. (BackgroundHostCallsTests uses it too.)
final class CountingHost: SandboxHost {
    struct Counts {
        var inFlight = 0
        var peak = 0
        var entered = 0
        var cancelled = 0
        var operations: [String] = []
        var lateArrived = false
        var heldAnswered = false
        var releaseHeld = false
        var releaseGated = false
    }

    let counts = Mutex(Counts())

    var snapshot: Counts { counts.withLock { $0 } }

    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        let className = arguments["className"]?.stringValue ?? ""
        counts.withLock {
            $0.entered += 1
            $0.inFlight += 1
            $0.peak = max($0.peak, $0.inFlight)
            $0.operations.append(className)
        }
        defer { counts.withLock { $0.inFlight -= 1 } }
        switch className {
        case "Park":
            // Parked until the sandbox cancels the call (its invocation ended).
            try? await Task.sleep(for: .seconds(600))
            if Task.isCancelled { counts.withLock { $0.cancelled += 1 } }
        case "Hold":
            while !counts.withLock({ $0.lateArrived }), !Task.isCancelled { await Self.pause() }
        case "Gated":
            while !counts.withLock({ $0.releaseGated }), !Task.isCancelled { await Self.pause() }
        case "Held":
            while !counts.withLock({ $0.releaseHeld }), !Task.isCancelled { await Self.pause() }
            counts.withLock { $0.heldAnswered = true }
        case "Late":
            // Answers only once the other call's answer is on its way back to the worker.
            counts.withLock { $0.lateArrived = true }
            while !counts.withLock({ $0.heldAnswered }), !Task.isCancelled { await Self.pause() }
            for _ in 0..<50 { await Task.yield() }
        default:
            await Task.yield()
        }
        return .int(1)
    }

    /// Waits until `condition` holds of the counts (the condition is the synchronization; the
    /// pause between checks only spares the two cooperative threads a busy loop). Past a
    /// minute it records an issue and returns, rather than hang.
    func wait(sourceLocation: SourceLocation = #_sourceLocation, until condition: (Counts) -> Bool) async {
        let giveUp = ContinuousClock.now + .seconds(60)
        while !condition(snapshot), !Task.isCancelled {
            guard ContinuousClock.now < giveUp else {
                Issue.record("the host's counts did not reach the condition within a minute", sourceLocation: sourceLocation)
                return
            }
            await Self.pause()
        }
    }

    /// (A cancelled call's loops end: its sleep would return at once and spin a core.)
    private static func pause() async {
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// One invocation can't flood the host: its host calls run a few at a time, and none runs or
/// answers once the invocation has ended.
@Suite struct HostCallFanOutTests {
    static let source = """
        AV.Cloud.define('fanout', function (request) {
          var calls = [];
          for (var i = 0; i < request.params.n; i++) {
            calls.push(AV._request('data.find', { className: request.params.className }).then(function () { return 1; }));
          }
          return Promise.all(calls).then(function (answers) { return answers.length; });
        });
        var leaked = [];
        AV.Cloud.define('leave', function () {
          AV._request('data.find', { className: 'Held' }).then(function () { leaked.push('answer'); },
            function () { leaked.push('error'); });
          return 'left';
        });
        AV.Cloud.define('hold', function () { return AV._request('data.find', { className: 'Hold' }); });
        AV.Cloud.define('gated', function () { return AV._request('data.find', { className: 'Gated' }); });
        AV.Cloud.define('wait', async function () {
          await AV._request('data.find', { className: 'Late' });
          return leaked;
        });
        """

    private static func load(cap: Int = 8, waiting: Int = 1000) async throws -> CloudCode {
        var pool = CloudCode.Pool(workers: 1)
        pool.hostCallsPerInvocation = cap
        pool.hostCallsWaitingPerInvocation = waiting
        // These calls end with their answer: no background work (BackgroundWorkTests has it).
        pool.backgroundCalls = 0
        return try await CloudCode(files: [("cloud.js", source)], pool: pool)
    }

    /// Eight host calls of one invocation run at once, a thousand more may wait.
    @Test func theBoundsDefaults() {
        #expect(CloudCode.Pool().hostCallsPerInvocation == 8)
        #expect(CloudCode.Pool().hostCallsWaitingPerInvocation == 1000)
    }

    /// 200 data calls made at once all answer, with never more than the cap running together.
    @Test(arguments: [1, 8])
    func aFanOutRunsAtMostTheCapAtOnce(cap: Int) async throws {
        let code = try await Self.load(cap: cap)
        let host = CountingHost()
        for round in 0..<3 {
            let outcome = try await code.call(
                "fanout", request: ["params": ["n": 200, "className": "Big"]], host: host, cpuLimit: 20,
                deadline: .now + .seconds(120))
            #expect(try outcome.result.get() == 200, "round \(round)")
        }
        #expect(host.snapshot.entered == 600)
        #expect(host.snapshot.peak <= cap, "\(host.snapshot.peak) host calls ran at once")
    }

    /// Calls still waiting when the deadline passes never run, and the running ones are
    /// cancelled: the host sees exactly the cap's worth of calls, all ended with the invocation.
    @Test func callsEndWithTheirInvocation() async throws {
        let code = try await Self.load()
        let host = CountingHost()
        let call = Task {
            try await code.call(
                "fanout", request: ["params": ["n": 200, "className": "Park"]], host: host, cpuLimit: 5,
                deadline: .now + .seconds(5))
        }
        // The cap's worth enter (and park) while the invocation is live.
        await host.wait { $0.entered == 8 }
        let outcome = await #expect(throws: ScriptError.self) { try await call.value }
        #expect(outcome?.kind == .timeout)
        // The running calls were cancelled when the call ended; they return once they notice.
        await host.wait { $0.inFlight == 0 }
        // Another call on the same worker runs while any late starter would have shown up.
        _ = try await code.call(
            "fanout", request: ["params": ["n": 3, "className": "Other"]], host: host, cpuLimit: 5,
            deadline: .now + .seconds(60))
        let counts = host.snapshot
        #expect(counts.operations.filter { $0 == "Park" }.count == 8, "calls waiting at the deadline ran")
        #expect(counts.cancelled == 8, "a running call outlived its invocation")
    }

    /// Past the calls running and the calls waiting, a host call is refused at once with 429:
    /// each waiting call holds its arguments in Swift memory. The refusal reaches the script as
    /// a rejected promise; the function fails with it.
    @Test func pastTheWaitingBoundACallIsRefused() async throws {
        let code = try await Self.load(cap: 2, waiting: 5)
        let host = CountingHost()
        for round in 0..<3 {
            let outcome = try await code.call(
                "fanout", request: ["params": ["n": 50, "className": "Park"]], host: host, cpuLimit: 5,
                deadline: .now + .seconds(60))
            guard case .failure(let error) = outcome.result else {
                Issue.record("round \(round): the fan-out was not refused")
                continue
            }
            #expect(error.code == 429, "round \(round): \(error)")
            #expect(error.status == 429, "round \(round)")
            #expect(error.message.contains("waiting"), "round \(round): \(error.message)")
            // Refused, the invocation ended: the two running calls are cancelled, the five
            // waiting never run.
            await host.wait { $0.entered >= 2 * (round + 1) && $0.inFlight == 0 }
            #expect(host.snapshot.entered == 2 * (round + 1))
            #expect(host.snapshot.cancelled == 2 * (round + 1))
        }
    }

    /// A call (`leave`) that answered before its data call came back, while another (`hold`)
    /// was live on the worker: once `hold` has ended too, the late answer runs in no call that
    /// got the worker after (`wait`, waiting there when the answer comes back, which reads what
    /// the answer's code did).
    @Test func aLateAnswerDoesNotReachTheNextCallOnTheWorker() async throws {
        let code = try await Self.load()
        for _ in 0..<3 {
            let host = CountingHost()
            async let held = code.call("hold", request: ["params": [:]], host: host, cpuLimit: 5, deadline: .now + .seconds(60))
            await host.wait { $0.operations.contains("Hold") }
            let left = try await code.call("leave", request: ["params": [:]], host: host, cpuLimit: 5, deadline: .now + .seconds(60))
            #expect(try left.result.get() == "left")
            async let waiting = code.call("wait", request: ["params": [:]], host: host, cpuLimit: 5, deadline: .now + .seconds(60))
            _ = try await held
            host.counts.withLock { $0.releaseHeld = true }
            #expect(try await waiting.result.get() == [], "the ended call's answer ran in the next call")
            #expect(host.snapshot.heldAnswered)
        }
    }
}
