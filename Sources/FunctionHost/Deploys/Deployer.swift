import CloudQueue
import DataAPI
import Foundation
import Hooks
import HTTPTypes
import Logging

/// Deploys, promotions, rollbacks and variable changes, one at a time: each loads the code it
/// switches to before anything is stored or switched, so a bundle that fails to load changes
/// nothing, and what is stored is always what runs.
actor Deployer {
    let store: DeployStore
    let environments: Environments
    /// The timers a version's `timers.json` sets when it becomes current; nil where no queue
    /// runs them (a bundle's timers are then still checked, and not applied).
    let timers: DeployTimers?

    init(store: DeployStore, environments: Environments, timers: DeployTimers? = nil) {
        self.store = store
        self.environments = environments
        self.timers = timers
    }

    /// Whether a change is under way, and the changes waiting their turn. The actor alone would
    /// let a second change in at each await of the first (an engine app takes seconds to start):
    /// two deploys could then store one order and install the other.
    private var changing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits until no other change is under way; `leave` lets the next in, in arrival order.
    private func enter() async {
        guard changing else {
            changing = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func leave() {
        if waiting.isEmpty { changing = false } else { waiting.removeFirst().resume() }
    }

    /// At start: the functions directory becomes a new version of both environments when its
    /// files changed since the last start (or at the very first start); then each environment
    /// loads the version it ran before the restart.
    func start(functionsDirectory: String) async throws {
        var files = Dictionary(
            JavaScriptFunctions.files(in: functionsDirectory).map { ($0.name, $0.source) }, uniquingKeysWith: { a, _ in a })
        // Its timers come with it, as a deploy's do.
        if !files.isEmpty, let timers = try? String(contentsOfFile: functionsDirectory + "/" + DeployTimers.file, encoding: .utf8) {
            files[DeployTimers.file] = timers
        }
        var production = try await store.environment(.production)
        let hash = CloudCodeVersion.hash(of: files)
        if production.seedHash != hash {
            var staging = try await store.environment(.staging)
            if !files.isEmpty {
                let version = try await store.add(
                    CloudCodeVersion(files: files, message: "\(functionsDirectory) at start", author: "host"))
                production.switchTo(version.number)
                staging.switchTo(version.number)
            }
            production.seedHash = hash
            _ = try await store.save(staging)
            production = try await store.save(production)
            if !files.isEmpty {
                for name in EnvironmentName.allCases { try await timers?.apply(files, to: name) }
            }
        }
        for name in EnvironmentName.allCases {
            let state = try await store.environment(name)
            let version = try await storedVersion(state.version)
            environments.install(try await startingLoad(version, for: name, variables: state.variables), for: name)
        }
    }

    /// What an environment runs at start: its version, its engine app (if it is one) started
    /// once the host listens. An engine app that can't be written out or installed doesn't keep
    /// the host down: the environment's writes are refused until a deploy mends it.
    private func startingLoad(_ version: CloudCodeVersion?, for name: EnvironmentName, variables: [String: String]) async throws
        -> Environments.Live
    {
        do {
            return try await load(version, for: name, variables: variables, strict: false, waits: false)
        } catch {
            guard version?.engine != nil else { throw error }
            environments.settings.logger.error("\(name)'s engine app could not be prepared: \(error)")
            var live = try await environments.prepare(version, for: name, variables: variables, strict: false)
            live.registry.hooks.heldWrites = "The app's engine could not be prepared; deploy it again."
            return live
        }
    }

    /// Loads a version for an environment without switching to it; an engine app's version is
    /// written out on this host (once) and its process started, serving when `waits`.
    private func load(
        _ version: CloudCodeVersion?, for environment: EnvironmentName, variables: [String: String], strict: Bool,
        waits: Bool = true, bundle: EngineBundle? = nil
    ) async throws -> Environments.Live {
        var release: Environments.EngineRelease?
        if let version, let engine = version.engine {
            guard let runtime = environments.settings.runtime else {
                throw HostError(status: .badRequest, code: 1, message: "This host runs no engine apps.")
            }
            let directory = try await runtime.releases.directory(
                for: engine,
                load: { [store] in
                    if let bundle { return bundle }
                    return try await store.bundle(engine.bundle)
                },
                environment: EngineRunner.hostEssentials.merging(variables) { $1 },
                output: { line, isError in runtime.record(line, isError: isError, environment: environment) })
            release = .init(engine: engine, directory: directory)
        }
        return try await environments.prepare(version, for: environment, variables: variables, strict: strict, release: release, waits: waits)
    }

    /// Stores a bundle as a new version and switches an environment to it; a bundle that fails
    /// to load is refused (400) with its file, line and message, and nothing changes.
    func deploy(files: [String: String], message: String, author: String, to environment: EnvironmentName) async throws
        -> CloudCodeVersion
    {
        await enter()
        defer { leave() }
        guard !files.isEmpty else { throw HostError(status: .badRequest, code: 1, message: "The bundle has no files.") }
        let state = try await store.environment(environment)
        // Bad timers refuse the bundle as bad code does, before anything is stored.
        _ = try DeployTimers.definitions(in: files, timeZone: timers?.timeZone ?? .gmt, settings: timers?.settings ?? QueueSettings())
        let draft = CloudCodeVersion(files: files, message: message, author: author)
        return try await commit(draft, running: environments.prepare(draft, for: environment, variables: state.variables, strict: true), in: state)
    }

    /// Stores an engine app (`deploy --engine`) as a new version and switches an environment to
    /// it once its process serves; an app that doesn't start, or clashes with in-process code,
    /// is refused (400) with why, and nothing changes. Its `timers.json` is applied as a
    /// bundle's is.
    func deploy(engineApp bundle: EngineBundle, command: String?, message: String, author: String, to environment: EnvironmentName)
        async throws -> CloudCodeVersion
    {
        await enter()
        defer { leave() }
        let state = try await store.environment(environment)
        let manifest = try EngineManifest(bundle: bundle, command: command)
        var files: [String: String] = [:]
        if let timers = bundle.files[DeployTimers.file] { files[DeployTimers.file] = String(decoding: timers.bytes, as: UTF8.self) }
        _ = try DeployTimers.definitions(in: files, timeZone: timers?.timeZone ?? .gmt, settings: timers?.settings ?? QueueSettings())
        let hash = bundle.hash
        let draft = CloudCodeVersion(
            files: files, message: message, author: author,
            engine: .init(bundle: hash, size: bundle.size, fileCount: bundle.files.count, manifest: manifest))
        let next = try await load(draft, for: environment, variables: state.variables, strict: true, bundle: bundle)
        do {
            try await store.store(bundle, hash: hash)
        } catch {
            environments.discard(next)
            throw error
        }
        return try await commit(draft, running: next, in: state)
    }

    /// Stores a prepared draft as a new version and switches the environment to it; what was
    /// prepared is thrown away if storing fails.
    private func commit(_ draft: CloudCodeVersion, running prepared: Environments.Live, in state: EnvironmentState) async throws
        -> CloudCodeVersion
    {
        var state = state
        var next = prepared
        let version: CloudCodeVersion
        do {
            version = try await store.add(draft)
            state.switchTo(version.number)
            _ = try await store.save(state)
        } catch {
            environments.discard(prepared)
            throw error
        }
        next.version = version.number
        environments.install(next, for: state.name)
        try await timers?.apply(version.files, to: state.name)
        return version
    }

    /// Production runs exactly the version staging runs.
    func promote() async throws -> Int {
        await enter()
        defer { leave() }
        guard let number = try await store.environment(.staging).version else {
            throw HostError(status: .badRequest, code: 1, message: "Staging runs no version to promote.")
        }
        return try await switchTo(number, in: .production)
    }

    /// An environment returns to an earlier version: `number`, or the one it ran before the
    /// current one.
    func rollback(_ environment: EnvironmentName, to number: Int?) async throws -> Int {
        await enter()
        defer { leave() }
        if let number { return try await switchTo(number, in: environment) }
        var state = try await store.environment(environment)
        let history = state.history
        guard history.count >= 2 else {
            throw HostError(status: .badRequest, code: 1, message: "\(environment) has no earlier version to return to.")
        }
        let previous = history[history.count - 2]
        let next = try await prepare(previous, for: state)
        // Going back drops the version left from the history, so a second rollback goes further.
        state.history.removeLast(2)
        state.switchTo(previous)
        do {
            _ = try await store.save(state)
        } catch {
            environments.discard(next.live)
            throw error
        }
        environments.install(next.live, for: environment)
        try await timers?.apply(next.files, to: environment)
        return previous
    }

    /// Changes an environment's variables; its code reloads with them (same version).
    func setVariables(_ set: [String: String], secret: Bool, unset: [String], in environment: EnvironmentName) async throws
        -> EnvironmentState
    {
        await enter()
        defer { leave() }
        var state = try await store.environment(environment)
        for (key, value) in set {
            state.variables[key] = value
            if secret { state.secrets.insert(key) } else { state.secrets.remove(key) }
        }
        for key in unset {
            state.variables[key] = nil
            state.secrets.remove(key)
        }
        let version = try await storedVersion(state.version)
        let next = try await load(version, for: environment, variables: state.variables, strict: false)
        do {
            state = try await store.save(state)
        } catch {
            environments.discard(next)
            throw error
        }
        environments.install(next, for: environment)
        return state
    }

    /// Loads what the database says each environment runs, where it differs from what this host
    /// runs: another host sharing the database deployed, promoted, rolled back or changed
    /// variables. (Changes made here are installed as they are made, so they never differ.)
    func sync() async throws {
        await enter()
        defer { leave() }
        for name in EnvironmentName.allCases {
            // Changes here take turns with this one (`enter`), so what runs is what this host
            // last installed.
            let live = environments.current(name)
            let state = try await store.environment(name)
            guard state.version != live.version || state.variables != live.variables else {
                failedSwitches[name] = nil
                continue
            }
            let target = FailedSwitch.Target(version: state.version, variables: state.variables)
            if let failed = failedSwitches[name], failed.target == target, ContinuousClock.now < failed.retryAt { continue }
            let next: Environments.Live
            do {
                next = try await load(try await storedVersion(state.version), for: name, variables: state.variables, strict: false)
            } catch {
                // What the other host switched to doesn't load here (its engine app doesn't start
                // on this machine): the hooks of this host and the others differ, so this one's
                // writes are held until it loads; tried again later, each time twice as late.
                let previous = failedSwitches[name].flatMap { $0.target == target ? $0.delay : nil }
                let delay = min(FailedSwitch.longestDelay, (previous ?? .milliseconds(500)) * 2)
                failedSwitches[name] = FailedSwitch(target: target, retryAt: .now + delay, delay: delay)
                environments.hold(name, because: "This host can't run what \(name) was switched to on another host; try again shortly.")
                environments.settings.logger.error("\(name): what another host switched to doesn't load here (tried again in \(delay)): \(error)")
                continue
            }
            failedSwitches[name] = nil
            environments.install(next, for: name)
        }
    }

    /// A switch another host made that this one couldn't load, and when it is tried again.
    private struct FailedSwitch {
        struct Target: Equatable {
            var version: Int?
            var variables: [String: String]
        }

        var target: Target
        var retryAt: ContinuousClock.Instant
        var delay: Duration
        /// The longest wait between two tries.
        static let longestDelay: Duration = .seconds(300)
    }

    private var failedSwitches: [EnvironmentName: FailedSwitch] = [:]

    /// An environment as stored.
    func state(of environment: EnvironmentName) async throws -> EnvironmentState {
        try await store.environment(environment)
    }

    /// Every version, newest first, with the environments running each.
    func versions() async throws -> [(version: CloudCodeVersion, live: [EnvironmentName])] {
        var running: [Int: [EnvironmentName]] = [:]
        for name in EnvironmentName.allCases {
            if let number = try await store.environment(name).version { running[number, default: []].append(name) }
        }
        return try await store.allVersions().map { ($0, running[$0.number] ?? []) }
    }

    private func switchTo(_ number: Int, in environment: EnvironmentName) async throws -> Int {
        var state = try await store.environment(environment)
        let next = try await prepare(number, for: state)
        state.switchTo(number)
        do {
            _ = try await store.save(state)
        } catch {
            environments.discard(next.live)
            throw error
        }
        environments.install(next.live, for: environment)
        try await timers?.apply(next.files, to: environment)
        return number
    }

    /// Loads a stored version for an environment, without switching to it; with its files,
    /// whose timers apply once it is switched to.
    private func prepare(_ number: Int, for state: EnvironmentState) async throws
        -> (live: Environments.Live, files: [String: String])
    {
        guard let version = try await store.version(number) else {
            throw HostError(status: .notFound, code: 1, message: "There is no version \(number).")
        }
        // Stored versions loaded once already: a file failing now is logged, not fatal.
        let live = try await load(version, for: state.name, variables: state.variables, strict: false)
        return (live, version.files)
    }

    private func storedVersion(_ number: Int?) async throws -> CloudCodeVersion? {
        guard let number else { return nil }
        return try await store.version(number)
    }
}
