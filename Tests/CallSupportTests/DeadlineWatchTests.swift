import Synchronization
import Testing

@testable import CallSupport

@Suite struct DeadlineWatchTests {
    struct Failure: Error, Equatable {}

    @Test func aCallThatFinishesInTimeGivesItsValue() async throws {
        let watch = DeadlineWatch()
        let value = try await watch.run(until: .now + .seconds(30)) { 42 }
        #expect(value == 42)
    }

    @Test func aCallThatThrowsInTimeThrows() async throws {
        let watch = DeadlineWatch()
        await #expect(throws: Failure.self) {
            _ = try await watch.run(until: .now + .seconds(30)) { () async throws -> Int in throw Failure() }
        }
    }

    @Test func aCallPastItsDeadlineIsCancelledAndGivesNil() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(5))
        let sawCancellation = Mutex(false)
        let value = try await watch.run(until: .now + .milliseconds(20)) { () async throws -> Int in
            // Waits for an hour unless cancelled: only the watch can end it in time.
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch is CancellationError {
                sawCancellation.withLock { $0 = true }
                throw CancellationError()
            }
            return 1
        }
        #expect(value == nil)
        #expect(sawCancellation.withLock { $0 })
    }

    @Test func aCallThatIgnoresCancellationStillCountsAsLate() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(5))
        let value = try await watch.run(until: .now + .milliseconds(10)) { () async -> Int in
            // Ignores cancellation, but returns only once it has been cancelled.
            while !Task.isCancelled { await Task.yield() }
            return 7
        }
        #expect(value == nil)
    }

    @Test func callsWithDifferentDeadlinesEndIndependently() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(5))
        async let late = watch.run(until: .now + .milliseconds(10)) { () async throws -> Int in
            try await Task.sleep(for: .seconds(3600))
            return 1
        }
        async let inTime = watch.run(until: .now + .seconds(60)) { () async throws -> Int in
            try await Task.sleep(for: .milliseconds(50))
            return 2
        }
        #expect(try await late == nil)
        #expect(try await inTime == 2)
        // The watch goes idle and starts again for the next call.
        #expect(try await watch.run(until: .now + .seconds(30)) { 3 } == 3)
    }

    @Test func theCallersTaskIsNotCancelled() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(5))
        _ = try await watch.run(until: .now + .milliseconds(5)) { () async throws -> Int in
            try await Task.sleep(for: .seconds(3600))
            return 0
        }
        #expect(!Task.isCancelled)
    }
}

extension DeadlineWatchTests {
    @TaskLocal static var requestTag: String?

    @Test func theCallSeesTheCallersTaskLocalValues() async throws {
        let watch = DeadlineWatch()
        let seen = try await Self.$requestTag.withValue("r-1") {
            try await watch.run(until: .now + .seconds(30)) { Self.requestTag }
        }
        #expect(seen == "r-1")
    }

    // Bounded: were cancellation not forwarded, the call would sleep its hour and fail here.
    @Test(.timeLimit(.minutes(1))) func cancellingTheCallerCancelsTheCall() async throws {
        let watch = DeadlineWatch()
        let started = AsyncStream<Void>.makeStream()
        let caller = Task {
            try await watch.run(until: .now + .seconds(3600)) { () async throws -> Int in
                started.continuation.yield()
                try await Task.sleep(for: .seconds(3600))
                return 1
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        caller.cancel()
        await #expect(throws: CancellationError.self) { _ = try await caller.value }
    }
}
