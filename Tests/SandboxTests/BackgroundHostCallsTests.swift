import JSON
import Synchronization
import Testing

@testable import Sandbox

/// The waiters a gate admitted, in order.
private final class Admitted: Sendable {
    let names = Mutex<[String]>([])
}

/// Background work can't crowd the host: the host calls of answered invocations run a few at
/// a time across the pool (a function half of them), in order, and those still waiting when
/// their invocation ends never run; a call whose caller waits never waits for them.
@Suite struct BackgroundHostCallsTests {
    /// `a` and `b` answer at once and make `n` data calls of `className` in a timer, after their
    /// answer; `fg` answers with a data call's answer.
    static let source = """
        function later(params) {
          setTimeout(function () {
            for (var i = 0; i < params.n; i++) AV._request('data.find', { className: params.className }).catch(function () {});
          }, 0);
        }
        AV.Cloud.define('a', function (request) { later(request.params); return 'a'; });
        AV.Cloud.define('b', function (request) { later(request.params); return 'b'; });
        AV.Cloud.define('fg', function () {
          return AV._request('data.find', { className: 'Quick' }).then(function () { return 'answered'; });
        });
        """

    private static func load(limit: Int, backgroundTime: Duration = .seconds(120)) async throws -> CloudCode {
        var pool = CloudCode.Pool(workers: 4)
        pool.backgroundHostCalls = limit
        pool.backgroundTime = backgroundTime
        return try await CloudCode(files: [("cloud.js", source)], pool: pool)
    }

    /// Calls `name`, whose background work makes `n` calls of `className`; returns that work.
    private static func start(
        _ code: CloudCode, _ name: String, host: CountingHost, className: String, n: Int
    ) async throws -> BackgroundWork {
        let outcome = try await code.call(
            name, request: ["params": ["className": .string(className), "n": .int(Int64(n))]], host: host, cpuLimit: 5,
            deadline: .now + .seconds(60))
        #expect(try outcome.result.get() == .string(name))
        return try #require(outcome.background)
    }

    @Test func theBoundDefaults() {
        #expect(CloudCode.Pool().backgroundHostCalls == 8)
    }

    /// 64 background host calls of two functions: never more than the pool's 4 run at once,
    /// the rest wait, and all run once the running ones answer.
    @Test func atMostTheLimitRunPoolWide() async throws {
        let code = try await Self.load(limit: 4)
        let host = CountingHost()
        var works: [BackgroundWork] = []
        for name in ["a", "b"] {
            for _ in 0..<4 { works.append(try await Self.start(code, name, host: host, className: "Gated", n: 8)) }
        }
        await WorkerShareTests.until { code.backgroundHostCalls.waiting == 60 && host.snapshot.inFlight == 4 }
        #expect(code.backgroundHostCalls.running == 4)
        host.counts.withLock { $0.releaseGated = true }
        for work in works { _ = await work.ended() }
        #expect(host.snapshot.entered == 64)
        #expect(host.snapshot.peak == 4, "\(host.snapshot.peak) background host calls ran at once")
        #expect(code.backgroundHostCalls == (0, 0))
    }

    /// One function's background work takes half the places, however much of it waits: another
    /// function's background call runs past its 30 waiting calls.
    @Test func oneFunctionTakesAtMostHalf() async throws {
        let code = try await Self.load(limit: 4)
        let host = CountingHost()
        var works: [BackgroundWork] = []
        for _ in 0..<4 { works.append(try await Self.start(code, "a", host: host, className: "Gated", n: 8)) }
        await WorkerShareTests.until { code.backgroundHostCalls.waiting == 30 && host.snapshot.inFlight == 2 }
        #expect(code.backgroundHostCalls.running == 2)
        let other = try await Self.start(code, "b", host: host, className: "Quick", n: 3)
        _ = await other.ended()
        #expect(host.snapshot.entered == 5, "b's calls ran while a's waited")
        #expect(host.snapshot.inFlight == 2 && code.backgroundHostCalls.waiting == 30)
        host.counts.withLock { $0.releaseGated = true }
        for work in works { _ = await work.ended() }
        #expect(host.snapshot.entered == 35)
    }

    /// With every background place taken and more waiting, a call's own data call (its caller
    /// waits for it) runs at once.
    @Test func aForegroundCallIsAnsweredWhileTheGateIsFull() async throws {
        let code = try await Self.load(limit: 2)
        let host = CountingHost()
        let works = [
            try await Self.start(code, "a", host: host, className: "Gated", n: 8),
            try await Self.start(code, "b", host: host, className: "Gated", n: 8),
        ]
        await WorkerShareTests.until { code.backgroundHostCalls.waiting == 14 && host.snapshot.inFlight == 2 }
        let outcome = try await code.call("fg", request: ["params": [:]], host: host, cpuLimit: 5, deadline: .now + .seconds(60))
        #expect(try outcome.result.get() == "answered")
        #expect(code.backgroundHostCalls == (2, 14), "the foreground call took a background place")
        host.counts.withLock { $0.releaseGated = true }
        for work in works { _ = await work.ended() }
    }

    /// When an invocation's background bound passes, its calls still waiting at the pool's gate
    /// leave the line unrun and its running one is cancelled; the places are free again.
    @Test func waitersEndWithTheirBackgroundWork() async throws {
        let code = try await Self.load(limit: 2, backgroundTime: .seconds(2))
        let host = CountingHost()
        let work = try await Self.start(code, "a", host: host, className: "Park", n: 8)
        await WorkerShareTests.until { code.backgroundHostCalls.waiting == 7 && host.snapshot.inFlight == 1 }
        let lines = await work.ended()
        #expect(lines.contains { $0.message.contains("stopped") }, "\(lines)")
        #expect(code.backgroundHostCalls.waiting == 0)
        await WorkerShareTests.until { host.snapshot.inFlight == 0 && code.backgroundHostCalls.running == 0 }
        #expect(host.snapshot.entered == 1, "a call waiting at the gate ran after its invocation ended")
        #expect(host.snapshot.cancelled == 1)
        // Nothing kept a place: both of another function's calls run.
        _ = try await Self.start(code, "b", host: host, className: "Quick", n: 2).ended()
        #expect(host.snapshot.entered == 3)
    }

    /// The gate itself: a place freed goes to the first waiter whose function is under its
    /// half, in order of arrival; a cancelled waiter leaves the line and takes no place.
    @Test func placesGoInOrderWithinEachFunctionsHalf() async {
        let gate = BackgroundHostCalls(limit: 2)
        #expect(await gate.enter("a"))
        #expect(await gate.enter("b"))
        let admitted = Admitted()
        var tasks: [Task<Void, Never>] = []
        for (index, label) in ["a1", "b1", "a2"].enumerated() {
            tasks.append(Task {
                if await gate.enter(String(label.prefix(1))) { admitted.names.withLock { $0.append(label) } }
            })
            await WorkerShareTests.until { gate.counts.waiting == index + 1 }
        }
        // b's place: a1 is first in line, but a holds its half.
        gate.leave("b")
        await WorkerShareTests.until { admitted.names.withLock { $0 } == ["b1"] }
        gate.leave("a")
        await WorkerShareTests.until { admitted.names.withLock { $0 } == ["b1", "a1"] }
        let cancelled = Task { await gate.enter("b") }
        await WorkerShareTests.until { gate.counts.waiting == 2 }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(gate.counts.waiting == 1)
        gate.leave("a")
        await WorkerShareTests.until { admitted.names.withLock { $0 } == ["b1", "a1", "a2"] }
        for task in tasks { await task.value }
        #expect(gate.counts.running == 2 && gate.counts.peak == 2)
        // A task cancelled before it asks takes no place, even with room.
        gate.leave("a")
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await gate.enter("c")
        }
        #expect(await early.value == false)
        #expect(gate.counts.running == 1 && gate.counts.waiting == 0)
    }
}
