import Foundation
import Synchronization

/// A dedicated thread that owns one JavaScriptCore engine and runs jobs on it, one at a time.
///
/// JavaScriptCore contexts must not be used from several threads, and a script that runs for
/// seconds must not hold a thread of Swift's cooperative pool or an event loop: so each engine
/// gets a thread of its own, and callers `await` their job's result.
public final class JSWorker: Sendable {
    private typealias Job = @Sendable (JSEngineBox) -> Void

    /// Jobs waiting (each with whether it loads code), and whether the worker is shutting down.
    private struct Mailbox {
        var jobs: [(job: Job, loading: Bool)] = []
        var closed = false
    }

    /// The state shared between callers and the thread.
    private final class Shared: Sendable {
        let mailbox = Mutex(Mailbox())
        /// Wakes the thread when a job arrives; used with its own lock, as NSCondition requires.
        let signal = NSCondition()
        /// When the running job started, in milliseconds since `born` plus one; 0 when idle or
        /// loading code.
        let busySince = Atomic<Int>(0)
        /// The worker's start, the origin of `busySince`.
        let born = ContinuousClock.now

        /// Milliseconds since `born`, plus one (so that 0 means "idle").
        var stamp: Int {
            let elapsed = born.duration(to: .now).components
            return Int(elapsed.seconds) * 1000 + Int(elapsed.attoseconds / 1_000_000_000_000_000) + 1
        }
    }

    private let shared = Shared()
    private var signal: NSCondition { shared.signal }

    /// Whether the job running now has run longer than `limit`: a script in a loop, not a step
    /// of an ordinary call (those take microseconds, a few milliseconds at most). A job that
    /// loads code (`loading`) never counts: it ends by itself, and calls may queue behind it.
    public func isStuck(longerThan limit: Duration = .milliseconds(10)) -> Bool {
        let since = shared.busySince.load(ordering: .relaxed)
        let milliseconds = Int(limit.components.seconds) * 1000 + Int(limit.components.attoseconds / 1_000_000_000_000_000)
        return since != 0 && shared.stamp - since > milliseconds
    }

    /// Starts the worker's thread.
    public init(name: String = "js-worker") {
        let shared = shared
        let thread = Thread {
            // Named from the thread itself: Foundation names the system thread (what `top -H`
            // and `perf` show) only when the running thread sets it; set before `start`, the
            // worker kept its creator's name.
            Thread.current.name = name
            let signal = shared.signal
            let box = JSEngineBox()
            while true {
                signal.lock()
                var job: (job: Job, loading: Bool)?
                var closed = false
                while job == nil && !closed {
                    (job, closed) = shared.mailbox.withLock { box -> ((job: Job, loading: Bool)?, Bool) in
                        box.jobs.isEmpty ? (nil, box.closed) : (box.jobs.removeFirst(), false)
                    }
                    if job == nil && !closed { signal.wait() }
                }
                signal.unlock()
                guard let job else { return }
                if !job.loading { shared.busySince.store(shared.stamp, ordering: .relaxed) }
                box.jobsStarted += 1
                job.job(box)
                shared.busySince.store(0, ordering: .relaxed)
            }
        }
        // JavaScriptCore's own stack checks need room: recursion without end must end in a
        // RangeError, not a crash.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Stops the thread once the jobs already queued have run.
    public func shutdown() {
        signal.lock()
        shared.mailbox.withLock { $0.closed = true }
        signal.signal()
        signal.unlock()
    }

    /// Evaluates a script and returns its result as JSON text (nil for `undefined`).
    public func evaluate(_ source: String, file: String = "<eval>", cpuLimit: Double = 10) async throws(ScriptError)
        -> String?
    {
        try await run { box throws(ScriptError) in
            // An engine the watchdog stopped is never entered again (`JSEngine.wasStopped`): the
            // next evaluation gets a fresh one. (A worker with code to load is replaced through
            // `WorkerRuntime`, which loads it.)
            defer { if box.engine.wasStopped { box.engine = JSEngine() } }
            return try box.engine.evaluate(source, file: file, limits: .init(cpuSeconds: cpuLimit))
        }
    }

    /// Runs a job on the worker's engine: several evaluations that must not interleave with
    /// other callers' (a call and the read of its result). `loading`: the job loads code (see
    /// `isStuck`).
    func run<T: Sendable>(
        loading: Bool = false, _ body: @escaping @Sendable (JSEngineBox) throws(ScriptError) -> T
    ) async throws(ScriptError) -> T {
        let result: Result<T, ScriptError> = await withCheckedContinuation { [shared] continuation in
            submit(loading: loading) { box in
                let result: Result<T, ScriptError>
                do throws(ScriptError) {
                    result = .success(try body(box))
                } catch {
                    result = .failure(error)
                }
                // Idle before the caller hears back: its next call must not find this worker still
                // busy with the job just done (on a loaded machine the thread may not get back to
                // its loop for milliseconds, and a worker busy past the threshold counts as stuck).
                shared.busySince.store(0, ordering: .relaxed)
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// Queues a job without waiting for it: how host answers and timers get back to a script.
    /// `loading`: the job loads code (see `isStuck`).
    func submit(loading: Bool = false, _ job: @escaping @Sendable (JSEngineBox) -> Void) {
        signal.lock()
        shared.mailbox.withLock { $0.jobs.append((job, loading)) }
        signal.signal()
        signal.unlock()
    }
}

/// Carries the engine across the job closures' `@Sendable` boundary.
///
/// `@unchecked Sendable` is safe here because the box is created on the worker's thread and
/// only ever touched by jobs running on that same thread.
final class JSEngineBox: @unchecked Sendable {
    /// The engine; a job may replace it with a fresh one (after a script filled its heap).
    var engine = JSEngine()
    /// Jobs the worker has started, this one included: tells a job whether the one before it
    /// was the step that left `lastStepEnd`.
    var jobsStarted = 0
    /// The thread's CPU time when a step ended (`WorkerRuntime.step`), and which job it was.
    var lastStepEnd: (job: Int, cpuTime: Double)?

    /// The thread's CPU time now, for a step about to start: the end of the step just before,
    /// when no other job ran between them (only the worker's wait for this job did, a few
    /// microseconds at most, which this step is charged); else read from the clock. Each read
    /// is a system call, and a step made two.
    func cpuTimeAtStepStart() -> Double {
        if let last = lastStepEnd, last.job == jobsStarted - 1 { return last.cpuTime }
        return JSWatchdog.threadCPUTime()
    }

    /// The thread's CPU time now, read at a step's end and kept for the next step.
    func cpuTimeAtStepEnd() -> Double {
        let now = JSWatchdog.threadCPUTime()
        lastStepEnd = (jobsStarted, now)
        return now
    }
}
