import JSON
import Synchronization
import Testing

@testable import Sandbox

/// A host whose `Park` calls wait until the sandbox cancels them (counted); others answer at once.
private final class ParkHost: SandboxHost {
    struct Counts {
        var operations: [String] = []
        var cancelled = 0
    }

    let counts = Mutex(Counts())

    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        let className = arguments["className"]?.stringValue ?? ""
        counts.withLock { $0.operations.append(operation.rawValue + " " + className) }
        if className == "Park" {
            try? await Task.sleep(for: .seconds(600))
            counts.withLock { $0.cancelled += 1 }
            throw HostCallError(code: 124, message: "cancelled")
        }
        return ["objectId": "t1"]
    }
}

/// What a call starts and doesn't await runs on after its answer, as LeanEngine's process lets
/// it, within a bound, and its console lines are kept; endless background work ends at the
/// bound, frees its worker, and can't take the room of other functions.
@Suite struct BackgroundWorkTests {
    static let source = """
        AV.Cloud.define('fire', function () {
          console.log('answering');
          AV._request('data.create', { className: 'Todo' }).then(function (saved) { console.log('saved ' + saved.objectId); });
          setTimeout(function () { console.log('later'); }, 0);
          return 'answered';
        });
        AV.Cloud.define('forever', function () {
          setInterval(function () {}, 50);
          AV._request('data.find', { className: 'Park' }).catch(function () {});
          return 'left';
        });
        AV.Cloud.define('spinLater', function () {
          setTimeout(function () { for (;;) {} }, 0);
          return 'left';
        });
        AV.Cloud.define('ping', function () { return 'pong'; });
        AV.Cloud.define('saveAfterAnswer', function () {
          Promise.resolve().then(function () {
            return AV._request('data.create', { className: 'Todo' }).then(function (saved) { console.log('saved ' + saved.objectId); });
          });
          return 'answered';
        });
        AV.Cloud.define('lineAfterAnswer', function () {
          Promise.resolve().then(function () { console.log('after'); });
          return 'answered';
        });
        """

    private static func load(workers: Int = 2, backgroundTime: Duration = .seconds(60), backgroundCalls: Int = 64) async throws
        -> CloudCode
    {
        var pool = CloudCode.Pool(workers: workers)
        pool.backgroundTime = backgroundTime
        pool.backgroundCalls = backgroundCalls
        return try await CloudCode(files: [("cloud.js", source)], pool: pool)
    }

    private static func call(
        _ code: CloudCode, _ name: String, host: any SandboxHost, cpu: Double = 5, client: String? = nil
    ) async throws -> CloudCode.Outcome {
        try await code.call(name, request: ["params": [:]], host: host, cpuLimit: cpu, deadline: .now + .seconds(60), client: client)
    }

    /// The defaults: fifteen seconds after the answer, 64 calls' background work at once.
    @Test func theBoundsDefaults() {
        let pool = CloudCode.Pool()
        #expect(pool.backgroundTime == .seconds(15))
        #expect(pool.backgroundCalls == 64)
    }

    /// The save the function didn't return runs, and so does its timer; what they log comes
    /// with the background work's end, not with the answer.
    @Test func workNotAwaitedRunsAfterTheAnswer() async throws {
        let code = try await Self.load()
        let host = ParkHost()
        let outcome = try await Self.call(code, "fire", host: host)
        #expect(try outcome.result.get() == "answered")
        #expect(outcome.logs.map(\.message) == ["answering"])
        let background = try #require(outcome.background)
        let lines = await background.ended().map(\.message)
        #expect(Set(lines) == ["saved t1", "later"], "\(lines)")
        #expect(host.counts.withLock { $0.operations } == ["data.create Todo"])
        #expect(code.activeCalls == 0)
    }

    /// Endless background work (an interval, a call that never answers) ends at the bound:
    /// its host call is cancelled, it says so in its log, and its worker is free again.
    @Test func endlessBackgroundWorkEndsAtItsBound() async throws {
        let code = try await Self.load(backgroundTime: .milliseconds(200))
        let host = ParkHost()
        let outcome = try await Self.call(code, "forever", host: host)
        #expect(try outcome.result.get() == "left")
        let lines = try await #require(outcome.background).ended()
        #expect(lines.contains { $0.level == "warning" && $0.message.contains("stopped") }, "\(lines)")
        #expect(code.activeCalls == 0)
        #expect(code.workersHeld(by: "forever") == 0)
        #expect(try await Self.call(code, "ping", host: host).result.get() == "pong")
        await WorkerShareTests.until { host.counts.withLock { $0.cancelled } == 1 }
    }

    /// An answer with nothing pending, then a microtask of the same step that starts a save:
    /// the save still runs and its line comes with the work's end. (The host ends a settled
    /// invocation from what the script reports as it goes, not at the answer.)
    @Test func workStartedAfterTheAnswerInTheSameStepRuns() async throws {
        let code = try await Self.load(workers: 1)
        let host = ParkHost()
        let outcome = try await Self.call(code, "saveAfterAnswer", host: host)
        #expect(try outcome.result.get() == "answered")
        let lines = try await #require(outcome.background).ended().map(\.message)
        #expect(lines == ["saved t1"])
        #expect(host.counts.withLock { $0.operations } == ["data.create Todo"])
        #expect(code.activeCalls == 0)
    }

    /// A line logged after the answer with nothing pending is not lost; calls with no
    /// background work at all, one after another on one worker, each end with no line, and
    /// the next call's work is its own.
    @Test func settledCallsEndWithTheirOwnLines() async throws {
        let code = try await Self.load(workers: 1)
        let host = ParkHost()
        let late = try await Self.call(code, "lineAfterAnswer", host: host)
        #expect(try await #require(late.background).ended().map(\.message) == ["after"])
        for _ in 0..<20 {
            let outcome = try await Self.call(code, "ping", host: host)
            #expect(try outcome.result.get() == "pong")
            #expect(try await #require(outcome.background).ended().isEmpty)
        }
        let fired = try await Self.call(code, "fire", host: host)
        #expect(Set(try await #require(fired.background).ended().map(\.message)) == ["saved t1", "later"])
        #expect(code.activeCalls == 0)
        // The worker is handed back in a job queued on it after the end.
        await WorkerShareTests.until { code.workersHeld(by: "ping") == 0 && code.workersHeld(by: "fire") == 0 }
    }

    /// A loop in background work stops at the call's CPU budget, as before its answer.
    @Test func aLoopInBackgroundWorkStopsAtTheCPUBudget() async throws {
        let code = try await Self.load()
        let outcome = try await Self.call(code, "spinLater", host: ParkHost(), cpu: 0.2)
        #expect(try outcome.result.get() == "left")
        let lines = try await #require(outcome.background).ended()
        #expect(lines.contains { $0.level == "error" && $0.message.contains("background work failed") }, "\(lines)")
        #expect(try await Self.call(code, "ping", host: ParkHost()).result.get() == "pong")
    }

    /// A function that starts endless background work on every call gets half the room for it
    /// (past that its calls' work ends at their answer, said in their log), other functions
    /// still answer at once meanwhile, and the work it kept ends at the bound.
    @Test func endlessBackgroundWorkDoesNotStarveOthers() async throws {
        // The bound outlasts the rounds on a loaded machine too: the work kept at the first two
        // must still be running when the last ones answer (at 2 s it had ended, and room freed).
        let code = try await Self.load(backgroundTime: .seconds(10), backgroundCalls: 4)
        let host = ParkHost()
        var refused = 0
        var kept: [BackgroundWork] = []
        for round in 0..<10 {
            let outcome = try await Self.call(code, "forever", host: host)
            #expect(try outcome.result.get() == "left")
            let background = try #require(outcome.background)
            if round < 2 {
                kept.append(background)
                continue
            }
            let lines = await background.ended()
            if lines.contains(where: { $0.message.contains("background work was stopped at its answer") }) { refused += 1 }
        }
        #expect(refused == 8)
        #expect(code.activeCalls == 2, "a function holds half of the background room")
        #expect(try await Self.call(code, "ping", host: host).result.get() == "pong")
        #expect(try await Self.call(code, "fire", host: host).result.get() == "answered")
        for background in kept { _ = await background.ended() }
        #expect(code.workersHeld(by: "forever") == 0)
        await WorkerShareTests.until { host.counts.withLock { $0.cancelled } == 10 }
    }
}

/// Attack: once the background room is full, a call whose un-awaited save reaches the host only
/// after a microtask (as the SDK's save does) had its work dropped with no line in its log.
@Suite struct BackgroundRefusalTests {
    @Test func refusedWorkStartedAfterAMicrotaskIsSaidInTheLog() async throws {
        let source = """
            AV.Cloud.define('forever', function () {
              AV._request('data.find', { className: 'Park' }).catch(function () {});
              return 'left';
            });
            AV.Cloud.define('late', function () {
              Promise.resolve().then(function () { return AV._request('data.create', { className: 'Todo' }); });
              return 'late';
            });
            """
        var pool = CloudCode.Pool(workers: 2)
        pool.backgroundCalls = 1
        let code = try await CloudCode(files: [("cloud.js", source)], pool: pool)
        let host = ParkHost()
        let call = { (name: String) in
            try await code.call(name, request: ["params": [:]], host: host, cpuLimit: 5, deadline: .now + .seconds(60))
        }
        let kept = try await call("forever")
        #expect(try kept.result.get() == "left")
        let refused = try await call("late")
        #expect(try refused.result.get() == "late")
        let lines = try await #require(refused.background).ended()
        #expect(lines.contains { $0.level == "warning" && $0.message.contains("background work was stopped at its answer") })
        _ = try await #require(kept.background).ended()
    }
}
