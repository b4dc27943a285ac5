import DataAPI
import Foundation
import Hooks
import HTTPTypes
import Logging
import Sandbox
import Synchronization

/// What each environment runs at this moment: its functions (Swift and the JavaScript of its
/// live version) and hooks, and its variables. A switch replaces an environment's entry at
/// once; a call that already took the old entry finishes on it (the old code stays alive until
/// its last call ends), and new calls take the new one.
final class Environments: HookSource {
    /// One environment's running code.
    struct Live: Sendable {
        /// The version it runs; nil for Swift functions only.
        var version: Int?
        /// Its functions and hooks.
        var registry: FunctionRegistry
        /// Its variables (secrets included: its own code may read them).
        var variables: [String: String]
        /// Its JavaScript, loaded; nil for Swift functions only.
        var code: CloudCode? = nil
        /// Its functions and hooks without its engine's, when it has an engine: what the engine's
        /// names are registered beside again when the engine lists them anew.
        var inProcess: FunctionRegistry? = nil
        /// The engine its functions and hooks call, when it has one.
        var engine: EngineApp? = nil
        /// The process of its deployed engine app, when its version is one: retired once the
        /// environment runs something else.
        var runner: EngineRunner? = nil
    }

    /// How code is loaded.
    struct Settings: Sendable {
        /// The deadline of a JavaScript function.
        var timeout: Duration
        /// Where each environment's code may send HTTP requests.
        var outbound: [EnvironmentName: OutboundPolicy]
        /// Where load errors and switches are logged.
        var logger: Logger
        /// The JavaScript workers and their shares (`HostConfiguration.javaScriptPool`).
        var pool = CloudCode.Pool()
        /// GC stress for tests (`HostConfiguration.javaScriptCollectsGarbageBeforeEachStep`).
        var collectsGarbageBeforeEachStep = false
        /// The Cloud Queue the code's functions and hooks enqueue into (`AV.Cloud.enqueue`), set
        /// once the queue is made.
        var queue = QueueReference()
        /// Each environment's own engine (`EngineApp`), whose functions and hooks are registered
        /// beside the in-process code's.
        var engines: [EnvironmentName: EngineApp] = [:]
        /// What engine processes share (where the host listens, their logs); nil where no engine
        /// app can be deployed (a host built without one).
        var runtime: EngineRuntime? = nil
    }

    /// The Swift functions and hooks, in every environment.
    let base: FunctionRegistry
    let settings: Settings
    /// What each environment runs: its functions and its hooks in one value, under one lock, so
    /// a switch changes both at once.
    let live = Mutex<[EnvironmentName: Live]>([:])

    init(base: FunctionRegistry, settings: Settings) {
        self.base = base
        self.settings = settings
    }

    /// What an environment runs now.
    func current(_ environment: EnvironmentName) -> Live {
        live.withLock { $0[environment] } ?? Live(version: nil, registry: base.serving(environment), variables: [:])
    }

    /// The hooks an environment runs now: the data service's hook dispatcher reads them here.
    func hooks(in environment: EnvironmentName) -> HookRegistry {
        current(environment).registry.hooks
    }

    /// Loads a version with an environment's variables, without switching to it. With
    /// `strict`, a file that fails to load fails the whole version (a deploy); otherwise it is
    /// logged and skipped (the code found at start, which must not keep the host down).
    ///
    /// A version that is an engine app comes with its `release`, started here; with `waits`,
    /// once it serves (`withEngine`).
    func prepare(
        _ version: CloudCodeVersion?, for environment: EnvironmentName, variables: [String: String], strict: Bool,
        release: EngineRelease? = nil, waits: Bool = true
    ) async throws -> Live {
        var registry = base.serving(environment)
        guard let version else {
            return try await withEngine(
                Live(version: nil, registry: registry, variables: variables), in: environment, strict: strict, release: nil, waits: waits)
        }
        let code = try await JavaScriptFunctions.load(
            files: version.scripts, into: &registry, timeout: settings.timeout, outbound: settings.outbound,
            variables: variables, pool: settings.pool, collectsGarbageBeforeEachStep: settings.collectsGarbageBeforeEachStep,
            refusingClashes: strict, queue: settings.queue, logger: settings.logger)
        if strict, let (file, error) = code?.loadErrors.first {
            throw HostError(
                status: .badRequest, code: 1,
                message: "The bundle was not deployed: \(file)\(error.line.map { ":\($0)" } ?? ""): \(error.message)")
        }
        return try await withEngine(
            Live(version: version.number, registry: registry, variables: variables, code: code), in: environment, strict: strict,
            release: release, waits: waits)
    }

    /// The sandbox's pool, per environment: its workers, the calls in flight on them, and the
    /// host calls of their background work running and waiting at the pool's gate.
    func poolGauges() -> [HostMetrics.Gauge] {
        live.withLock { $0 }.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap { environment, live -> [HostMetrics.Gauge] in
            guard let code = live.code else { return [] }
            let labels = [("environment", environment.rawValue)]
            return [
                .init(name: "functionhost_sandbox_workers", labels: labels, value: Double(code.workerCount)),
                .init(name: "functionhost_sandbox_active_calls", labels: labels, value: Double(code.activeCalls)),
                .init(
                    name: "functionhost_sandbox_background_host_calls", labels: labels + [("state", "running")],
                    value: Double(code.backgroundHostCalls.running)),
                .init(
                    name: "functionhost_sandbox_background_host_calls", labels: labels + [("state", "waiting")],
                    value: Double(code.backgroundHostCalls.waiting)),
            ]
        }
    }

    /// Makes an environment run what `prepare` loaded. The engine app it ran before, if
    /// another, is retired once the calls it has in flight end.
    func install(_ next: Live, for environment: EnvironmentName) {
        let previous = live.withLock { all in
            defer { all[environment] = next }
            return all[environment]
        }
        settings.logger.info(
            "\(environment) now runs \(next.version.map { "version \($0)" } ?? "Swift functions only").")
        if let old = previous?.runner, old !== next.runner {
            Task { await old.retire() }
        }
    }

    /// Refuses the writes an environment's before-hooks would check (503, code 142) until it
    /// next switches: what it runs is not what the database says it should.
    func hold(_ environment: EnvironmentName, because reason: String) {
        live.withLock { all in
            guard var current = all[environment] else { return }
            current.registry.hooks.heldWrites = reason
            all[environment] = current
        }
    }

    /// Throws away what `prepare` loaded and was not installed: its engine app's process stops.
    func discard(_ prepared: Live) {
        guard let runner = prepared.runner, current(runner.environment).runner !== runner else { return }
        Task { await runner.retire(drain: .zero) }
    }
}
