import Foundation
import Synchronization

/// One run against its give-up time: whichever ends first, the function's answer or the clock,
/// decides the run, and the other is cancelled. An invoker that ignores cancellation is left
/// behind (its answer is dropped) rather than holding the queue's slot forever.
final class AttemptRace: Sendable {
    typealias Ended = (outcome: TaskOutcome, logs: [String])

    private let state: Mutex<(continuation: CheckedContinuation<Ended?, Never>?, tasks: [Task<Void, Never>])>

    private init(_ continuation: CheckedContinuation<Ended?, Never>) {
        state = Mutex((continuation, []))
    }

    /// The run's end: the invoker's answer, `.timedOut` at `giveUpAt`, or nil when the calling
    /// task is cancelled first.
    static func run(_ invoker: @escaping TaskInvoker, _ invocation: TaskInvocation, clock: any QueueClock, giveUpAt: Date) async
        -> Ended?
    {
        let holder = Mutex<AttemptRace?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let race = AttemptRace(continuation)
                holder.withLock { $0 = race }
                race.add(Task { race.end(await invoker(invocation)) })
                race.add(
                    Task {
                        do {
                            try await clock.sleep(until: giveUpAt)
                            race.end((.timedOut, ["[queue] the run was abandoned: no answer by its time limit and grace."]))
                        } catch {}
                    })
                // A cancellation before `holder` was set found no race to end.
                if Task.isCancelled { race.end(nil) }
            }
        } onCancel: {
            holder.withLock { $0 }?.end(nil)
        }
    }

    /// Ends the race with `value` if it hasn't ended, cancelling both sides.
    private func end(_ value: Ended?) {
        let (continuation, tasks) = state.withLock { state in
            defer { state = (nil, []) }
            return (state.continuation, state.tasks)
        }
        guard let continuation else { return }
        for task in tasks { task.cancel() }
        continuation.resume(returning: value)
    }

    /// Adds a side to cancel when the race ends (at once, when it has).
    private func add(_ task: Task<Void, Never>) {
        let ended = state.withLock { state in
            if state.continuation == nil { return true }
            state.tasks.append(task)
            return false
        }
        if ended { task.cancel() }
    }
}
