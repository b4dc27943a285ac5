import DataAPI
import Hooks
import HTTPTypes
import Logging
import Synchronization

/// An environment's own engine, registered beside its in-process code: when a version is
/// prepared, and again whenever the engine lists its names anew (it started, an operator asked).
extension Environments {
    /// How long a deploy waits for the engine to list its names before it uses what it listed last.
    static let engineAskTime: Duration = .seconds(5)

    /// `live` with `environment`'s engine's names registered beside its code, if it has an
    /// engine. A deploy (`strict`) is refused when a name is defined in both places; the code
    /// found at start keeps the in-process one and logs the clash.
    func withEngine(_ live: Live, in environment: EnvironmentName, strict: Bool) async throws -> Live {
        guard let engine = settings.engines[environment] else { return live }
        var next = live
        next.inProcess = live.registry
        // A deploy asks the engine anew, unless it is down (a started one that hasn't answered
        // yet: what listens on its port before that isn't it).
        let asked = engine.downReason == nil ? try? await engine.fetchNames(deadline: .now + Self.engineAskTime) : nil
        guard let names = asked ?? engine.names else {
            // Never listed yet: its hooks may check any class, so writes wait for none and are
            // refused until it has (`refreshEngine` builds the registry again without this).
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
        guard let engine = settings.engines[environment] else { return ([], []) }
        let names = try await engine.fetchNames(deadline: deadline)
        let registration = live.withLock { all in
            var current = all[environment] ?? Live(version: nil, registry: base.serving(environment), variables: [:])
            let inProcess = current.inProcess ?? current.registry
            var registry = inProcess
            let registration = EngineFunctions.register(names, of: engine, into: &registry, timeout: settings.timeout)
            current.registry = registry
            current.inProcess = inProcess
            all[environment] = current
            return registration
        }
        report(registration, in: environment)
        settings.logger.info("\(environment)'s engine defines \(names.count) functions and hooks.")
        return (names, registration.clashes)
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
