import Synchronization

/// Runs user code against a wall-clock deadline, cancelling it when the deadline passes.
///
/// One watch serves every call: a single ticking task looks over the calls in flight, instead of
/// each call arming a timer of its own. A timer per call (a sleeping child task racing the
/// handler) cost a third of a Swift function's throughput. Each call runs in a task of its own,
/// started in place (`Task.immediate`), so that cancelling it leaves the caller's task (an HTTP
/// connection's) alone: a child task in a task group cost a Swift function about 8 µs of the
/// server's CPU per call in the benchmark, an immediate task about one.
public final class DeadlineWatch: Sendable {
    /// A call in flight: how to cancel it, and when it must end.
    private struct Call: Sendable {
        let cancel: @Sendable () -> Void
        let deadline: ContinuousClock.Instant
        var expired = false
    }

    private struct State: Sendable {
        var calls: [UInt64: Call] = [:]
        var nextID: UInt64 = 0
        var isTicking = false
    }

    private let state = Mutex(State())
    /// How often the ticker looks while calls are in flight: the most a deadline overshoots by.
    private let tick: Duration

    /// Creates a watch that looks over its calls every `tick` while any are in flight.
    public init(tick: Duration = .milliseconds(50)) {
        self.tick = tick
    }

    /// Runs `operation` in a task of its own that is cancelled once `deadline` passes, or when the
    /// caller's task is.
    ///
    /// - Returns: the operation's value, or nil when the deadline passed first (whatever the
    ///   operation did after its cancellation, its result comes too late to count).
    public func run<Value: Sendable>(
        until deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        // Started on this thread: a call that never suspends has finished here, and costs no trip
        // through the scheduler. The task inherits the caller's priority and task-local values.
        let task = Task.immediate { try await operation() }
        let id = register(cancel: { task.cancel() }, deadline: deadline)
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        let expired = state.withLock { $0.calls.removeValue(forKey: id)?.expired ?? false }
        return expired ? nil : try result.get()
    }

    private func register(cancel: @escaping @Sendable () -> Void, deadline: ContinuousClock.Instant) -> UInt64 {
        let (id, startsTicking) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.calls[id] = Call(cancel: cancel, deadline: deadline)
            defer { state.isTicking = true }
            return (id, !state.isTicking)
        }
        if startsTicking {
            Task.detached { await self.tickWhileBusy() }
        }
        return id
    }

    /// Cancels the calls past their deadline until none is in flight, sleeping until the earliest
    /// deadline but never longer than a tick (a call registered meanwhile may end sooner).
    private func tickWhileBusy() async {
        var pause = tick
        while true {
            try? await Task.sleep(for: pause)
            let now = ContinuousClock.now
            let (late, next): ([@Sendable () -> Void], Duration?) = state.withLock { state in
                var earliest = now + tick
                var late: [@Sendable () -> Void] = []
                for (id, call) in state.calls where !call.expired {
                    if call.deadline <= now {
                        state.calls[id]?.expired = true
                        late.append(call.cancel)
                    } else {
                        earliest = min(earliest, call.deadline)
                    }
                }
                if state.calls.isEmpty {
                    state.isTicking = false
                    return (late, nil)
                }
                return (late, earliest - now)
            }
            // Outside the lock: cancelling runs the call's own cancellation handlers.
            for cancel in late { cancel() }
            guard let next else { return }
            pause = next
        }
    }
}
