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
