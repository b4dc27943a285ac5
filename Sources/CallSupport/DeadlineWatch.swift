import Synchronization

/// Runs user code against a wall-clock deadline, cancelling it when the deadline passes.
///
/// One watch serves every call: a single ticking task looks over the calls in flight, instead of
/// each call arming a timer of its own. A timer per call (a sleeping child task racing the
/// handler) cost a third of a Swift function's throughput; this costs a child task started in
/// place and a lock.
public final class DeadlineWatch: Sendable {
    /// A call in flight: the task running it, and when it must end.
    private struct Call: Sendable {
        let handle: TaskHandle
        let deadline: ContinuousClock.Instant
        var expired = false
    }

    /// The running call's task, cancellable by the ticking task.
    ///
    /// `cancel()` is part of `Task`'s own API, which `UnsafeCurrentTask` documents as safe from
    /// another task. The handle lives only in `State`, and the call removes it, under the lock,
    /// before leaving the closure that obtained it: whenever the ticker cancels it, the task exists.
    private struct TaskHandle: @unchecked Sendable {
        let task: UnsafeCurrentTask
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

    /// Runs `operation` in a child task that is cancelled once `deadline` passes.
    ///
    /// - Returns: the operation's value, or nil when the deadline passed first (whatever the
    ///   operation did after its cancellation, its result comes too late to count).
    public func run<Value: Sendable>(
        until deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        // A child task, so that cancelling it leaves the caller's own task (an HTTP connection's)
        // alone; started immediately, on this thread, so that a call that never suspends costs
        // no trip through the scheduler.
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addImmediateTask { try await self.watched(until: deadline, operation) }
            return try await group.next() ?? nil
        }
    }

    private func watched<Value: Sendable>(
        until deadline: ContinuousClock.Instant, _ operation: @Sendable () async throws -> Value
    ) async throws -> Value? {
        try await withUnsafeCurrentTask { task in
            guard let task else { return try await operation() }
            let id = register(TaskHandle(task: task), deadline: deadline)
            let result: Result<Value, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            let expired = state.withLock { $0.calls.removeValue(forKey: id)?.expired ?? false }
            return expired ? nil : try result.get()
        }
    }

    private func register(_ handle: TaskHandle, deadline: ContinuousClock.Instant) -> UInt64 {
        let (id, startsTicking) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.calls[id] = Call(handle: handle, deadline: deadline)
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
            let next: Duration? = state.withLock { state in
                var earliest = now + tick
                for (id, call) in state.calls where !call.expired {
                    if call.deadline <= now {
                        state.calls[id]?.expired = true
                        call.handle.task.cancel()
                    } else {
                        earliest = min(earliest, call.deadline)
                    }
                }
                if state.calls.isEmpty {
                    state.isTicking = false
                    return nil
                }
                return earliest - now
            }
            guard let next else { return }
            pause = next
        }
    }
}
