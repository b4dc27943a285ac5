import JSON
import Synchronization
import Testing

@testable import Sandbox

/// A function whose scripts loop until their CPU limit holds no more than its share of the
/// workers, and a client no more than its share of a function's: calls of other functions (and
/// other clients) still get a worker while the loops hold theirs. Past a function's share,
/// calls wait in a bounded line, then fail with `.busy`.
@Suite struct WorkerShareTests {
    static let source = """
        AV.Cloud.define('spin', function () { while (true) {} });
        AV.Cloud.define('ok', function () { return 'ok'; });
        AV.Cloud.define('held', function () { return AV._request('data.find', { className: 'Held' }); });
        """

    private static func spin(_ code: CloudCode, client: String) -> Task<Void, any Error> {
        Task {
            // Two seconds of CPU: room for the checks below while the loops still run, on a
            // loaded machine too; the call ends with a timeout.
            _ = try await code.call(
                "spin", request: ["params": [:]], cpuLimit: 2, deadline: .now + .seconds(20), client: client)
        }
    }

    /// Waits until `condition` holds, polling it every millisecond (the loops run on the workers'
    /// own threads; a poll that only yielded would take a core from them and the other tests).
    /// Past a minute it records an issue and returns, rather than hang to the time limit.
    static func until(sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async {
        let giveUp = ContinuousClock.now + .seconds(60)
        // A cancelled sleep returns at once: a cancelled wait (the test's time limit) ends.
        while !condition(), !Task.isCancelled {
            guard ContinuousClock.now < giveUp else {
                Issue.record("the condition did not hold within a minute", sourceLocation: sourceLocation)
                return
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The function's and client's shares follow the pool's size, which only its initializer
    /// sets (at least one worker, and at least one for a function and a client).
    @Test func thePoolsSharesFollowItsSize() {
        for (workers, expected) in [(-3, [1, 1, 1]), (0, [1, 1, 1]), (2, [2, 1, 1]), (8, [8, 4, 2]), (12, [12, 6, 3])] {
            let pool = CloudCode.Pool(workers: workers, queueLength: -1)
            #expect([pool.workers, pool.perFunction, pool.perClient] == expected, "\(workers) workers")
            #expect(pool.queueLength == 0)
        }
    }

    @Test(.timeLimit(.minutes(2))) func aLoopingFunctionLeavesWorkersForAnother() async throws {
        let code = try await CloudCode(
            files: [("cloud.js", Self.source)], pool: CloudCode.Pool(workers: 4, queueWait: .seconds(20)))
        let loops = ["a", "b", "c"].map { Self.spin(code, client: $0) }
        // Half of four workers for `spin`; its third call waits in line.
        await Self.until { code.workersHeld(by: "spin") == 2 && code.callsWaiting(for: "spin") == 1 }
        let outcome = try await code.call("ok", request: ["params": [:]], cpuLimit: 5, deadline: .now + .seconds(60))
        #expect(try outcome.result.get() == "ok")
        for loop in loops {
            await #expect(throws: ScriptError.self) { try await loop.value }
        }
    }

    @Test(.timeLimit(.minutes(2))) func oneClientTakesAtMostItsShareOfAFunction() async throws {
        let code = try await CloudCode(
            files: [("cloud.js", Self.source)], pool: CloudCode.Pool(workers: 8, queueWait: .seconds(20)))
        // A client may hold a quarter of eight workers: its third loop queues behind one of its
        // own on their worker. (A call joins its client's worker of the function while that one
        // isn't stuck: each loop starts once the one before is stuck.)
        var first: [Task<Void, any Error>] = []
        for count in 1...2 {
            first.append(Self.spin(code, client: "user:attacker"))
            await Self.until { code.workersHeld(by: "spin") == count && code.stuckWorkers == count }
        }
        first.append(Self.spin(code, client: "user:attacker"))
        await Self.until { code.activeCalls == 3 }
        #expect(code.workersHeld(by: "spin") == 2)
        // Another client of the same function gets a worker of its own meanwhile.
        let other = Self.spin(code, client: "user:other")
        await Self.until { code.workersHeld(by: "spin") == 3 && code.activeCalls == 4 }
        #expect(code.stuckWorkers >= 2)
        for loop in first + [other] {
            await #expect(throws: ScriptError.self) { try await loop.value }
        }
    }

    /// A second client of a function holding its whole share waits in the line; a full line
    /// (no room) or a wait past its bound refuses it as busy.
    ///
    /// The line of no room waits two minutes at most: a broken length bound shows as the call's
    /// 60 s deadline (`.timeout`), not as a refusal by the wait's bound.
    @Test(.timeLimit(.minutes(2)), arguments: [
        CloudCode.Pool(workers: 2, queueLength: 0, queueWait: .seconds(120)),
        CloudCode.Pool(workers: 2, queueWait: .milliseconds(100)),
    ])
    func pastTheLinesBoundsACallIsRefused(pool: CloudCode.Pool) async throws {
        let code = try await CloudCode(files: [("cloud.js", Self.source)], pool: pool)
        let loop = Self.spin(code, client: "a")
        await Self.until { code.workersHeld(by: "spin") == 1 }
        let error = await #expect(throws: ScriptError.self) {
            _ = try await code.call("spin", request: ["params": [:]], cpuLimit: 2, deadline: .now + .seconds(60), client: "b")
        }
        #expect(error?.kind == .busy)
        await #expect(throws: ScriptError.self) { try await loop.value }
    }

    /// A call waiting in line whose task is cancelled (its client went away) leaves the line at
    /// once: the next call gets its place rather than a refusal, for as long as the line's wait.
    @Test(.timeLimit(.minutes(2))) func aCancelledWaiterLeavesTheLine() async throws {
        let code = try await CloudCode(
            files: [("cloud.js", Self.source)], pool: CloudCode.Pool(workers: 2, queueLength: 1, queueWait: .seconds(120)))
        // The holder keeps `held`'s one worker (its share of two) while its host call is
        // parked, without spinning a core; calls of other clients wait in line.
        let host = ParkingHost()
        let holder = Task {
            try await code.call("held", request: ["params": [:]], host: host, cpuLimit: 5, deadline: .now + .seconds(100), client: "a")
        }
        await Self.until { host.parked.withLock { $0 } }
        #expect(code.workersHeld(by: "held") == 1)
        for round in 0..<3 {
            let waiter = Task {
                try await code.call(
                    "held", request: ["params": [:]], host: host, cpuLimit: 5, deadline: .now + .seconds(100), client: "b\(round)")
            }
            await Self.until { code.callsWaiting(for: "held") == 1 }
            waiter.cancel()
            await Self.until { code.callsWaiting(for: "held") == 0 }
            let error = await #expect(throws: ScriptError.self, "round \(round)") { try await waiter.value }
            #expect(error?.kind == .busy, "round \(round)")
            #expect(error?.message.contains("cancelled") == true, "round \(round): \(String(describing: error))")
        }
        #expect(code.workersHeld(by: "held") == 1)
        host.release.withLock { $0 = true }
        #expect(try await holder.value.result.get() == 1)
    }
}

/// Parks every host call until the test releases them.
private final class ParkingHost: SandboxHost {
    let parked = Mutex(false)
    let release = Mutex(false)

    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        parked.withLock { $0 = true }
        // The flag is the synchronization; the pause only spares the cooperative threads.
        // A call the sandbox cancelled (its invocation ended) is let go: its sleep would
        // return at once, and the loop spin a core.
        while !release.withLock({ $0 }), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
        return .int(1)
    }
}
