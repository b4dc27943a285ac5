import DataAPI
import Hooks
import HTTPTypes
import Logging
import Synchronization

/// An environment's own engine, registered beside its in-process code: the operator's
/// (`--engine-command`, `--engine-url`), or the engine app its version is (`deploy --engine`),
/// which runs in a process of its own per version: started and serving before the version is
/// switched to, retired once it no longer is.
extension Environments {
    /// How long a deploy waits for an operator's engine to list its names before it uses what it
    /// listed last.
    static let engineAskTime: Duration = .seconds(5)

    /// A deployed engine app ready to start: its version's part and the folder it was written to.
    struct EngineRelease: Sendable {
        var engine: CloudCodeVersion.Engine
        var directory: String
    }

    /// The engine `environment` calls now; nil without one.
    func engine(of environment: EnvironmentName) -> EngineApp? {
        current(environment).engine
    }

    /// `live` with `environment`'s engine's names registered beside its code, if it has an
    /// engine. A deploy (`strict`) is refused when a name is defined in both places; the code
    /// found at start keeps the in-process one and logs the clash.
    ///
    /// A deployed engine app (`release`) gets a process of its own; with `waits` (a deploy, a
    /// switch) `live` is answered once it serves, its names registered, and a start that fails
    /// refuses the switch; without (the host starting, before it listens), its writes are held
    /// until it first lists its names.
    func withEngine(_ live: Live, in environment: EnvironmentName, strict: Bool, release: EngineRelease?, waits: Bool) async throws
        -> Live
    {
        var next = live
        next.inProcess = live.registry
        if let release {
            guard settings.engines[environment] == nil else {
                throw HostError(
                    status: .badRequest, code: 1,
                    message: "\(environment) runs the engine the host was started with (--engine-command or --engine-url); an engine app can't be deployed to it.")
            }
            return try await withDeployedEngine(next, release, in: environment, strict: strict, waits: waits)
        }
        guard let engine = settings.engines[environment] else { return next }
        next.engine = engine
        // A deploy asks the engine anew, unless it is down (a started one that hasn't answered
        // yet: what listens on its port before that isn't it).
        let asked = engine.downReason == nil ? try? await engine.fetchNames(deadline: .now + Self.engineAskTime) : nil
        return try registering(asked ?? engine.names, of: engine, into: next, in: environment, strict: strict)
    }

    private func withDeployedEngine(_ live: Live, _ release: EngineRelease, in environment: EnvironmentName, strict: Bool, waits: Bool)
        async throws -> Live
    {
        guard let runtime = settings.runtime else {
            throw HostError(status: .badRequest, code: 1, message: "This host runs no engine apps.")
        }
        var next = live
        let engine = EngineApp(
            environment: environment, baseURL: "http://127.0.0.1:\(try EngineProcess.freePort())", keys: runtime.keys, startsDown: true,
            namesFile: "\(runtime.directory)/\(environment.rawValue)-\(release.engine.bundle.prefix(16)).json")
        let variables = live.variables
        let runner = EngineRunner(
            environment: environment, engine: engine,
            plan: .init(command: release.engine.manifest.run, directory: release.directory, startTimeout: release.engine.manifest.startupTimeout),
            runtime: runtime, variables: { variables },
            onReady: { [weak self] runner, names in self?.register(names, of: runner.engine, in: environment) })
        runner.start()
        next.engine = engine
        next.runner = runner
        guard waits else {
            return try registering(engine.names, of: engine, into: next, in: environment, strict: strict)
        }
        switch await runner.firstStart() {
        case .success(let names):
            do {
                return try registering(names, of: engine, into: next, in: environment, strict: strict)
            } catch {
                await runner.retire(drain: .zero)
                throw error
            }
        case .failure(let error):
            await runner.retire(drain: .zero)
            throw HostError(status: .badRequest, code: 1, message: "The engine app did not start: \(error.description)")
        }
    }

    /// `live` with `names` registered, or with its writes held when the engine never listed any.
    private func registering(_ names: [String]?, of engine: EngineApp, into live: Live, in environment: EnvironmentName, strict: Bool)
        throws -> Live
    {
        var next = live
        guard let names else {
            // Never listed yet: its hooks may check any class, so writes wait for none and are
            // refused until it has (`register` builds the registry again without this).
            next.registry.hooks.heldWrites = "The app's engine hasn't listed its hooks yet; try again shortly."
            return next
        }
        let registration = EngineFunctions.register(names, of: engine, into: &next.registry, timeout: settings.timeout)
        if strict, !registration.clashes.isEmpty {
            throw HostError(status: .badRequest, code: 1, message: Self.clashMessage(registration.clashes, environment))
        }
        report(registration, in: environment)
        return next
    }

    /// Asks `environment`'s engine for its names and registers them beside the code the
    /// environment runs now, at once (a deploy in between is kept: the names join its code).
    func refreshEngine(_ environment: EnvironmentName, deadline: ContinuousClock.Instant) async throws(EngineError)
        -> (names: [String], clashes: [String])
    {
        guard let engine = engine(of: environment) else { return ([], []) }
        let names = try await engine.fetchNames(deadline: deadline)
        return (names, register(names, of: engine, in: environment))
    }

    /// Registers the names `engine` listed beside the code `environment` runs now, if `engine`
    /// is still the one it calls (a replaced engine that restarted changes nothing); answers the
    /// names defined in both places.
    @discardableResult
    func register(_ names: [String], of engine: EngineApp, in environment: EnvironmentName) -> [String] {
        let registration = live.withLock { all -> EngineFunctions.Registration? in
            guard var current = all[environment], current.engine === engine else { return nil }
            let inProcess = current.inProcess ?? current.registry
            var registry = inProcess
            let registration = EngineFunctions.register(names, of: engine, into: &registry, timeout: settings.timeout)
            current.registry = registry
            current.inProcess = inProcess
            all[environment] = current
            return registration
        }
        guard let registration else { return [] }
        report(registration, in: environment)
        settings.logger.info("\(environment)'s engine defines \(names.count) functions and hooks.")
        return registration.clashes
    }

    /// Logs the names defined in both places and those this host doesn't run.
    private func report(_ registration: EngineFunctions.Registration, in environment: EnvironmentName) {
        if !registration.clashes.isEmpty {
            settings.logger.error("\(Self.clashMessage(registration.clashes, environment)) The in-process ones are run.")
        }
        for (name, reason) in registration.skipped {
            settings.logger.warning("\(environment)'s engine defines \(name), which is not run: \(reason).")
        }
    }

    private static func clashMessage(_ clashes: [String], _ environment: EnvironmentName) -> String {
        "\(clashes.map { "'\($0)'" }.joined(separator: ", ")) defined both in process (Swift or JavaScript) and by \(environment)'s engine; remove one."
    }
}
