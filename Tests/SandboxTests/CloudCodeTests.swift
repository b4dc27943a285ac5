import JSON
import Testing

@testable import Sandbox

/// A host whose answers the test controls: `echo` answers its arguments, `gate` waits until the
/// test opens it, anything else fails with code 1.
private struct TestHost: SandboxHost {
    let gate: Gate?

    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        switch operation {
        case .dataFetch: return arguments
        case .dataFind:
            await gate?.wait()
            return "opened"
        default: throw HostCallError(code: 1, message: "no \(operation.rawValue)")
        }
    }
}

/// Something a host call waits on until the test opens it: synchronisation without sleeps.
private actor Gate {
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    private var arrivals: [CheckedContinuation<Void, Never>] = []
    private var arrived = 0

    func wait() async {
        arrived += 1
        for arrival in arrivals { arrival.resume() }
        arrivals = []
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Returns once a call is waiting at the gate.
    func waitForArrival() async {
        if arrived > 0 { return }
        await withCheckedContinuation { arrivals.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

@Suite struct CloudCodeTests {
    private func load(_ source: String, workers: Int = 1, limits: CloudCode.Limits = .init()) async throws -> CloudCode {
        try await CloudCode(files: [("cloud.js", source)], workerCount: workers, limits: limits)
    }

    private func call(
        _ code: CloudCode, _ name: String, params: JSONValue = [:], host: any SandboxHost = TestHost(gate: nil),
        cpu: Double = 5, wall: Duration = .seconds(10)
    ) async throws(ScriptError) -> CloudCode.Outcome {
        try await code.call(name, request: ["params": params], host: host, cpuLimit: cpu, deadline: .now + wall)
    }

    @Test func awaitsHostCallsAndGetsTheirAnswers() async throws {
        let code = try await load("""
            AV.Cloud.define('twice', async function (request) {
              var first = await __fhCall('data.fetch', { n: request.params.n });
              var second = await __fhCall('data.fetch', { n: first.n * 2 });
              return second.n;
            });
            """)
        let outcome = try await call(code, "twice", params: ["n": 21])
        #expect(try outcome.result.get() == 42)
    }

    @Test func hostFailuresRejectWithTheirCode() async throws {
        let code = try await load("""
            AV.Cloud.define('bad', async function () {
              try { await __fhCall('data.count', {}); } catch (e) { return [e.code, e.message]; }
            });
            AV.Cloud.define('uncaught', async function () { await __fhCall('data.count', {}); });
            """)
        #expect(try await call(code, "bad").result.get() == [1, "no data.count"])
        guard case .failure(let error) = try await call(code, "uncaught").result else {
            Issue.record("an uncaught host failure fails the call")
            return
        }
        #expect(error.code == 1 && error.isUserError)
    }

    @Test func aWaitingScriptHoldsNoWorker() async throws {
        let gate = Gate()
        let code = try await load("""
            AV.Cloud.define('wait', async function () { return await __fhCall('data.find', {}); });
            AV.Cloud.define('quick', function () { return 'quick'; });
            """)
        async let waiting = call(code, "wait", host: TestHost(gate: gate))
        await gate.waitForArrival()
        // One worker, busy with nobody: the waiting call is parked in the host.
        #expect(try await call(code, "quick").result.get() == "quick")
        await gate.open()
        #expect(try await waiting.result.get() == "opened")
    }

    @Test func timersFireWithinTheInvocation() async throws {
        let code = try await load("""
            AV.Cloud.define('later', function () {
              return new Promise(function (resolve) {
                var ticks = 0;
                var interval = setInterval(function () {
                  ticks += 1;
                  if (ticks === 3) { clearInterval(interval); setTimeout(resolve, 1, 'ticks:' + ticks); }
                }, 1);
              });
            });
            """)
        #expect(try await call(code, "later").result.get() == "ticks:3")
    }

    @Test func aScriptThatNeverSettlesEndsAtItsDeadline() async throws {
        let code = try await load("""
            AV.Cloud.define('never', function () { return new Promise(function () {}); });
            AV.Cloud.define('ok', function () { return 1; });
            """)
        do {
            _ = try await call(code, "never", wall: .milliseconds(100))
            Issue.record("a call past its deadline must fail")
        } catch {
            #expect(error.kind == .timeout)
        }
        #expect(try await call(code, "ok").result.get() == 1)
    }

    /// Steps shorter than the watchdog's slice (10 ms) each ran under a fresh millisecond once
    /// the budget was spent, so a script of many short steps ran on until its deadline (found by
    /// an attack review: 14.5 s of CPU against a 10 s budget).
    @Test func shortStepsStopOnceTheBudgetIsSpent() async throws {
        let code = try await load("""
            AV.Cloud.define('steps', async function () {
              for (;;) {
                for (var i = 0, x = 0; i < 100000; i++) x += i;
                await __fhCall('data.fetch', {});
              }
            });
            """)
        do {
            _ = try await call(code, "steps", cpu: 0.05, wall: .seconds(60))
            Issue.record("a script past its CPU budget must be stopped")
        } catch {
            #expect(error.kind == .timeout)
            #expect(error.message == JSEngine.cpuLimitMessage, "stopped for its CPU, not at its deadline: \(error)")
        }
    }

    /// A script the watchdog stopped for its CPU leaves its engine behind: JavaScriptCore can keep
    /// the stop pending past the call, and entering that VM again aborted the whole host (an
    /// attack of short steps and timers at their CPU budget). The worker starts over instead,
    /// with fresh globals, and the next call is answered.
    @Test func aWorkerStartsOverAfterAScriptIsStoppedForItsCPU() async throws {
        let code = try await load("""
            var calls = 0;
            AV.Cloud.define('count', function () { calls += 1; return calls; });
            AV.Cloud.define('spin', async function () {
              calls += 100;
              await new Promise(function (resolve) { setTimeout(resolve, 0); });
              for (;;) {}
            });
            """)
        #expect(try await call(code, "count").result.get() == 1)
        do {
            _ = try await call(code, "spin", cpu: 0.05, wall: .seconds(60))
            Issue.record("a script past its CPU budget must be stopped")
        } catch {
            #expect(error.kind == .timeout)
        }
        // One worker: the same one, with a new engine (the old one had counted 101).
        #expect(try await call(code, "count").result.get() == 1)
    }

    /// A file whose top level the watchdog stops leaves its engine unusable: the load ends with
    /// that file's error rather than serving from an engine that must not be entered again.
    @Test func aFileStoppedWhileLoadingEndsTheLoad() async throws {
        do {
            _ = try await load("""
                AV.Cloud.define('ok', function () { return 1; });
                var kept = [];
                while (true) kept.push(new Array(100000).fill(1));
                """, limits: .init(memoryBytes: 64 << 20))
            Issue.record("a load the watchdog stopped must fail")
        } catch let error as ScriptError {
            #expect(error.kind == .memoryLimit, "\(error)")
            #expect(error.message.hasPrefix("cloud.js did not finish loading:"), "\(error)")
        }
    }

    /// The host's own evaluations on a worker (the code's names, the SDK check) can be stopped too:
    /// the worker then starts over with the code loaded, not with an empty engine that would
    /// fail every later call.
    @Test func aStoppedHostEvaluationLeavesTheWorkerServingTheCode() async throws {
        let code = try await load("""
            AV.Cloud.define('ok', function () { return 1; });
            """, limits: .init(memoryBytes: 64 << 20))
        do {
            _ = try await code.evaluate("var kept = []; while (true) kept.push(new Array(100000).fill(1));")
            Issue.record("an evaluation past the memory ceiling must be stopped")
        } catch {
            #expect(error.kind == .memoryLimit, "\(error)")
        }
        #expect(try await call(code, "ok").result.get() == 1)
    }

    @Test func cpuBudgetCountsEveryStep() async throws {
        let code = try await load("""
            AV.Cloud.define('spin', async function () {
              await __fhCall('data.fetch', {});
              while (true) {}
            });
            """)
        do {
            _ = try await call(code, "spin", cpu: 0.1)
            Issue.record("a loop must be stopped")
        } catch {
            #expect(error.kind == .timeout)
        }
    }

    @Test func unboundedAllocationIsStoppedAndTheWorkerRecovers() async throws {
        let code = try await load("""
            var kept = [];
            AV.Cloud.define('hog', function () { var a = []; while (true) a.push(new Array(100000).fill(1)); });
            AV.Cloud.define('hoard', function () { while (true) kept.push(new Array(100000).fill(1)); });
            AV.Cloud.define('ok', function () { return kept.length; });
            """, limits: .init(memoryBytes: 64 << 20))
        for name in ["hog", "hoard"] {
            do {
                _ = try await call(code, name)
                Issue.record("\(name) must be stopped")
            } catch {
                #expect(error.kind == .memoryLimit, "\(error)")
            }
            // `hoard` kept its garbage in a global: the worker starts over with fresh globals.
            #expect(try await call(code, "ok").result.get() == 0)
        }
    }

    /// A console line is bounded as the count is: one 300 KB string logged a thousand times was a
    /// thousand copies held by the host's log (attack review A, 3).
    @Test func aLongConsoleLineIsCut() async throws {
        let code = try await load("""
            AV.Cloud.define('loud', function () {
              var s = 'y'.repeat(300000);
              for (var i = 0; i < 3; i++) console.log(s);
              console.log('short');
              return 'done';
            });
            """)
        let outcome = try await call(code, "loud")
        #expect(try outcome.result.get() == "done")
        #expect(outcome.logs.count == 4)
        #expect(outcome.logs.prefix(3).allSatisfy { $0.message.utf8.count < 17_000 && $0.message.hasSuffix("283616 more characters)") })
        #expect(outcome.logs.last?.message == "short")
    }

    @Test func aHugeResultIsRefused() async throws {
        let code = try await load("AV.Cloud.define('big', function () { return 'x'.repeat(2000000); });",
            limits: .init(maxResultBytes: 1 << 20))
        guard case .failure(let error) = try await call(code, "big").result else {
            Issue.record("a result past the limit must fail")
            return
        }
        #expect(error.code == 141 && error.message.contains("allowed"))
    }

    @Test func hostCallsAtLoadTimeAreRefused() async throws {
        let code = try await load("""
            var refused = null;
            __fhCall('data.fetch', {}).catch(function (e) { refused = e.message; });
            setTimeout(function () { refused = 'fired'; }, 0);
            AV.Cloud.define('why', function () { return refused; });
            """)
        let message = try await call(code, "why").result.get().stringValue
        #expect(message?.contains("load time") == true, "\(String(describing: message))")
    }

    @Test func nativesAreHiddenFromUserCode() async throws {
        let code = try await load("AV.Cloud.define('seen', function () { return [typeof __fhSettle, typeof __fhHostCall]; });")
        #expect(try await call(code, "seen").result.get() == ["undefined", "undefined"])
    }

    @Test func processEnvCarriesTheVariables() async throws {
        let code = try await load("AV.Cloud.define('env', function () { return process.env.GREETING; });",
            limits: .init(variables: ["GREETING": "hi"]))
        #expect(try await call(code, "env").result.get() == "hi")
    }

    @Test func filesAreModulesAsInNode() async throws {
        let code = try await CloudCode(files: [
            ("cloud.js", """
                const AV = require('leanengine');
                const math = require('./lib/math');
                AV.Cloud.define('twice', function (request) { return math.twice(request.params.n) + math.loads; });
                """),
            ("lib/math.js", """
                const AV = require('leanengine');
                let loads = 0;
                loads += 1;
                module.exports = { twice: function (n) { return 2 * n; }, loads: loads };
                """),
            ("other.js", "const AV = require('leanengine'); AV.Cloud.define('me', () => typeof math);"),
        ])
        #expect(code.loadErrors.isEmpty, "\(code.loadErrors)")
        #expect(try await call(code, "twice", params: ["n": 20]).result.get() == 41, "the library ran once")
        #expect(try await call(code, "me").result.get() == "undefined", "a file's names stay its own")
    }
}
