import DataAPI
import Foundation
import Logging
import Synchronization

/// Keeps one engine process serving: starts it once the host listens, tells whoever waits when
/// it first answers its metadatas (or why it didn't), starts it again with back-off whenever it
/// exits (calls answer 503 at once meanwhile), until it is retired or the host stops.
///
/// An engine the operator names (`--engine-command`) has one runner for the host's life; a
/// deployed engine app has one per version an environment switched to, the old one retired
/// (drained, then stopped) once the new one serves.
final class EngineRunner: Sendable {
    /// What it runs.
    struct Plan: Sendable {
        /// The start command (`/bin/sh -c`) and the folder it runs in.
        var command: String
        var directory: String
        /// How long a start has to answer its metadatas.
        var startTimeout: Duration
        /// How long a stopped process has between SIGTERM and SIGKILL.
        var stopGrace: Duration = .seconds(5)
    }

    /// The environment whose engine it runs.
    let environment: EnvironmentName
    /// The engine the calls go to.
    let engine: EngineApp
    let plan: Plan
    private let runtime: EngineRuntime
    /// The process's environment, read at each start.
    private let variables: @Sendable () -> [String: String]
    /// Called each time a start answers its metadatas, with the names it listed.
    private let onReady: @Sendable (EngineRunner, [String]) async -> Void

    /// The longest pause between two starts of an engine that keeps exiting.
    static let maxBackOff: Duration = .seconds(30)
    /// An engine that ran this long before exiting is restarted at once.
    static let healthyRun: Duration = .seconds(60)
    /// How long a retired engine's calls in flight may take before it is stopped anyway: the
    /// longest a function may run, with room (LeanCloud kept old instances ≥ 30 s).
    static let drainTime: Duration = .seconds(30)
    /// How long a retired engine is kept at least, for the calls on their way to it.
    static let arrivalTime: Duration = .seconds(1)

    private struct State {
        var task: Task<Void, Never>?
        /// How the first start went, once known; who waits for it.
        var first: Result<[String], EngineError>?
        var waiters: [CheckedContinuation<Result<[String], EngineError>, Never>] = []
        var retired = false
    }

    private let state = Mutex(State())
    /// The last lines the process printed, for the message of a start that failed.
    private let tail = OutputTail()

    init(
        environment: EnvironmentName, engine: EngineApp, plan: Plan, runtime: EngineRuntime,
        variables: @escaping @Sendable () -> [String: String], onReady: @escaping @Sendable (EngineRunner, [String]) async -> Void
    ) {
        self.environment = environment
        self.engine = engine
        self.plan = plan
        self.runtime = runtime
        self.variables = variables
        self.onReady = onReady
    }

    /// Starts the loop, in a task of its own, counted among the host's runners (stopped with it).
    func start() {
        runtime.runners.add(self)
        let task = Task { await self.supervise() }
        state.withLock { $0.task = task }
    }

    /// Waits for the first start: the names it listed, or why it didn't answer.
    func firstStart() async -> Result<[String], EngineError> {
        await withCheckedContinuation { continuation in
            let known = state.withLock { state -> Result<[String], EngineError>? in
                if let first = state.first { return first }
                state.waiters.append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Stops the engine once the calls and pages in flight at it have ended (at most
    /// `drain`), and waits until its process is gone.
    func retire(drain: Duration = EngineRunner.drainTime) async {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.retired = true
            return state.task
        }
        let deadline = ContinuousClock.now + drain
        // A call that took the old code just before the switch reaches the engine just after it:
        // it is given a moment to arrive before the engine is found idle.
        if drain > .zero { try? await Task.sleep(for: min(drain, Self.arrivalTime)) }
        // A cancelled sleep returns at once: without the check a cancelled retire spun a core
        // until the deadline.
        while !engine.isIdle, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(50))
        }
        task?.cancel()
        await task?.value
        runtime.runners.remove(self)
    }

    private var isRetired: Bool { state.withLock { $0.retired } }

    private func settleFirst(_ outcome: Result<[String], EngineError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<[String], EngineError>, Never>] in
            guard state.first == nil else { return [] }
            state.first = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    private func supervise() async {
        // Started once the host listens: its SDK calls back to it from its first line.
        let apiServer = await runtime.apiServer.url()
        var quickExits = 0
        defer { settleFirst(.failure(.unreachable("it was stopped before it answered"))) }
        while !Task.isCancelled, !isRetired {
            let started = ContinuousClock.now
            let process: EngineProcess
            do {
                process = try EngineProcess(
                    command: plan.command, directory: plan.directory, environment: environment(apiServer: apiServer),
                    output: { [tail, runtime, environment] line, isError in
                        tail.append(line)
                        runtime.record(line, isError: isError, environment: environment)
                    })
            } catch {
                engine.markDown("it could not be started: \(error)")
                runtime.logger.error("\(environment)'s engine could not be started: \(error)")
                settleFirst(.failure(.unreachable("it could not be started: \(error)")))
                guard await pause(after: &quickExits) else { break }
                continue
            }
            runtime.logger.info("\(environment)'s engine started: \(plan.command) (pid \(process.pid)).")
            if let names = await waitUntilReady(process) {
                settleFirst(.success(names))
                await onReady(self, names)
            } else if !process.hasExited, !Task.isCancelled {
                runtime.logger.error(
                    "\(environment)'s engine didn't answer its metadatas within \(plan.startTimeout); it is stopped and started again.")
                settleFirst(.failure(.unreachable("it didn't answer its metadatas within \(plan.startTimeout): \(tail.text)")))
                await process.stop(grace: plan.stopGrace)
            }
            let status = await withTaskCancellationHandler {
                await process.waitUntilExit()
            } onCancel: {
                // The host stops, or a newer version took over: so does this process (SIGTERM,
                // then SIGKILL after the grace).
                Task { await process.stop(grace: plan.stopGrace) }
            }
            if Task.isCancelled || isRetired {
                engine.markDown("it was stopped")
                await process.stop(grace: plan.stopGrace)
                break
            }
            settleFirst(.failure(.unreachable("it exited with status \(status) before it answered: \(tail.text)")))
            engine.markDown("it exited with status \(status) and is being started again")
            runtime.logger.error("\(environment)'s engine exited with status \(status); it is started again.")
            if started.duration(to: .now) >= Self.healthyRun { quickExits = 0 }
            guard await pause(after: &quickExits) else { break }
        }
    }

    /// Polls the metadatas of a started engine until it answers (its names), exits, or runs out
    /// of time (nil).
    private func waitUntilReady(_ process: EngineProcess) async -> [String]? {
        let deadline = ContinuousClock.now + plan.startTimeout
        while ContinuousClock.now < deadline, !process.hasExited, !Task.isCancelled {
            if let names = try? await engine.fetchNames(deadline: min(deadline, .now + .seconds(2))) { return names }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// Waits before the next start: half a second, doubling with each quick exit, at most
    /// `maxBackOff`. False when the runner stops meanwhile.
    private func pause(after quickExits: inout Int) async -> Bool {
        let pause = min(Self.maxBackOff, .milliseconds(500) * (1 << min(quickExits, 6)))
        quickExits += 1
        do {
            try await Task.sleep(for: pause)
            return !isRetired
        } catch {
            return false
        }
    }

    /// LeanEngine's variables (`leanengine-protocol.md` § 4.3) over the environment's own, and
    /// the few of the host's a process needs to run (`PATH`, `HOME`, the locale). Nothing else
    /// of the host's environment (its database URL, its SMTP password) reaches the app.
    func environment(apiServer: String) -> [String: String] {
        var result = Self.hostEssentials
        for (name, value) in variables() { result[name] = value }
        let port = URLComponents(string: engine.baseURL)?.port.map(String.init) ?? ""
        let own: [String: String] = [
            "LEANCLOUD_APP_ID": engine.keys.appId, "LEANCLOUD_APP_KEY": engine.keys.appKey,
            "LEANCLOUD_APP_MASTER_KEY": engine.keys.masterKey, "LEANCLOUD_APP_HOOK_KEY": engine.keys.hookKey,
            "LEANCLOUD_APP_PORT": port, "LEANCLOUD_API_SERVER": apiServer,
            "LEANCLOUD_APP_ENV": environment == .production ? "production" : "stage",
            "LEANCLOUD_APP_PROD": environment == .production ? "1" : "0",
            "LEANCLOUD_APP_DOMAIN": "", "LEANCLOUD_REGION": "CN",
        ]
        for (name, value) in own {
            result[name] = value
            // The deprecated `LC_` twins, which older SDKs read.
            result["LC_" + name.dropFirst("LEANCLOUD_".count)] = value
        }
        return result
    }

    /// The host's variables a process needs to run, and nothing else of its environment.
    static var hostEssentials: [String: String] {
        let host = ProcessInfo.processInfo.environment
        var result: [String: String] = [:]
        for name in ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER"] {
            if let value = host[name] { result[name] = value }
        }
        return result
    }
}
