import Dispatch
import Synchronization
import Testing

@testable import Sandbox

@Suite struct JSWorkerTests {
    @Test func evaluatesToJSON() async throws {
        let worker = JSWorker()
        defer { worker.shutdown() }
        #expect(try await worker.evaluate("6 * 7") == "42")
        #expect(try await worker.evaluate("({a: [1, 'x', null], b: true})") == #"{"a":[1,"x",null],"b":true}"#)
        #expect(try await worker.evaluate("undefined") == nil)
    }

    /// A step starts its CPU count where the step just before it ended, and reads the clock
    /// when any other job ran between them: a job loading code (seconds of CPU) must not be
    /// charged to the call whose step comes next.
    @Test func aStepIsChargedFromTheEndOfTheStepBeforeOnlyWhenNothingRanBetween() async throws {
        let worker = JSWorker()
        defer { worker.shutdown() }
        let ended = try await worker.run { box in box.cpuTimeAtStepEnd() }
        let chained = try await worker.run { box in box.cpuTimeAtStepStart() }
        #expect(chained == ended, "the next job's step starts where the last one ended")
        _ = try await worker.evaluate("var x = 0; for (var i = 0; i < 3e6; i++) x += i; x")
        let fresh = try await worker.run { box in box.cpuTimeAtStepStart() }
        let now = try await worker.run { _ in JSWatchdog.threadCPUTime() }
        #expect(fresh > ended, "a job between them is not charged to the next step")
        #expect(fresh <= now)
    }

    @Test func globalsPersistWithinOneWorker() async throws {
        let worker = JSWorker()
        defer { worker.shutdown() }
        _ = try await worker.evaluate("var counter = 1; function bump() { return ++counter }")
        #expect(try await worker.evaluate("bump()") == "2")
    }

    @Test func exceptionsCarryTheirMessage() async throws {
        let worker = JSWorker()
        defer { worker.shutdown() }
        do {
            _ = try await worker.evaluate("throw new Error('boom')")
            Issue.record("a throw must reach the caller")
        } catch {
            #expect(error.kind == .exception)
            #expect(error.message.contains("boom"), "\(error)")
        }
        do {
            _ = try await worker.evaluate("\n\nnope(", file: "bad.js")
            Issue.record("a syntax error must throw")
        } catch {
            #expect(error.kind == .exception)
            #expect(error.line == 3, "\(error)")
        }
        #expect(try await worker.evaluate("1 + 1") == "2", "the worker keeps serving")
    }

    @Test func endlessLoopsAreTerminatedAndTheEngineStaysUsable() async throws {
        let worker = JSWorker()
        defer { worker.shutdown() }
        do {
            _ = try await worker.evaluate("while (true) {}", cpuLimit: 0.1)
            Issue.record("an endless loop must be stopped")
        } catch {
            #expect(error.kind == .timeout, "\(error)")
        }
        // `catch` inside the script can't swallow the termination.
        do {
            _ = try await worker.evaluate("try { while (true) {} } catch (e) {}", cpuLimit: 0.1)
            Issue.record("a caught endless loop must still be stopped")
        } catch {
            #expect(error.kind == .timeout, "\(error)")
        }
        #expect(try await worker.evaluate("'still' + ' here'") == #""still here""#)
    }

    @Test func unboundedRecursionIsARangeError() async throws {
        let worker = JSWorker()
        defer { worker.shutdown() }
        do {
            _ = try await worker.evaluate("function f() { return f() + 1 } f()")
            Issue.record("unbounded recursion must throw")
        } catch {
            #expect(error.kind == .exception)
            #expect(error.message.contains("RangeError"), "\(error)")
        }
        #expect(try await worker.evaluate("[1,2,3].length") == "3")
    }
}

/// A worker loading code isn't stuck, however long the load takes: calls queue behind it rather
/// than start more workers, and a check for a stuck loop can't pass on a load.
@Suite struct JSWorkerLoadTests {
    @Test(.timeLimit(.minutes(1))) func aLoadingJobDoesNotCountAsStuck() async throws {
        let worker = JSWorker()
        defer { worker.shutdown() }
        for loading in [true, false, true] {
            let started = Mutex<ContinuousClock.Instant?>(nil)
            let release = DispatchSemaphore(value: 0)
            worker.submit(loading: loading) { _ in
                started.withLock { $0 = .now }
                release.wait()
            }
            // The job runs until released: wait until it has run well past the 10 ms threshold.
            while started.withLock({ $0 }).map({ $0.duration(to: .now) < .milliseconds(50) }) ?? true {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(worker.isStuck() == !loading, loading ? "a load counted as stuck" : "a long step did not count as stuck")
            release.signal()
        }
        // Once loaded, the worker runs scripts as before.
        #expect(try await worker.evaluate("1 + 1") == "2")
        #expect(!worker.isStuck())
    }
}
