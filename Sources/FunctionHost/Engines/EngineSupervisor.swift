import DataAPI
import Foundation
import Logging
import ServiceLifecycle

/// Keeps each environment's engine serving while the host runs: starts the engines the operator
/// names (`--engine-command`, one `EngineRunner` each), watches one at a URL until it first
/// answers, asks every engine for its names again on SIGHUP, and stops every engine process
/// (deployed engine apps' too) with the host.
struct EngineSupervisor: Service {
    /// One environment's engine and where it comes from.
    struct Launch: Sendable {
        var environment: EnvironmentName
        var engine: EngineApp
        var setting: EngineSetting
    }

    let launches: [Launch]
    let environments: Environments
    let runtime: EngineRuntime

    /// Where the engines reach the host, once it listens.
    var apiServer: ListeningAddress { runtime.apiServer }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await refreshOnHangUp() }
                for launch in launches {
                    switch launch.setting.source {
                    case .command(let command, let directory):
                        let runner = EngineRunner(
                            environment: launch.environment, engine: launch.engine,
                            plan: .init(
                                command: command, directory: directory, startTimeout: launch.setting.startTimeout,
                                stopGrace: launch.setting.stopGrace),
                            runtime: runtime,
                            // Read at each start: a variable set reaches the engine when it next starts.
                            variables: { [environments] in environments.current(launch.environment).variables },
                            onReady: { [environments] runner, names in
                                environments.register(names, of: runner.engine, in: runner.environment)
                            })
                        runner.start()
                    case .url:
                        group.addTask { await watchUntilFirstAnswer(launch) }
                    }
                }
            }
        }
        await runtime.runners.stopAll()
    }

    /// SIGHUP's default action (exit) turned off, once per process, before any signal source
    /// exists: on Linux, libdispatch's source stops seeing the signal if it is set to ignored
    /// after the source was made (a second host in one process did that).
    private static let hangUpsIgnored: Void = {
        signal(SIGHUP, SIG_IGN)
    }()

    /// Asks every engine for its names again on each SIGHUP (`kill -HUP <host>`), as the reload
    /// route does, until the host stops.
    private func refreshOnHangUp() async {
        Self.hangUpsIgnored
        let source = DispatchSource.makeSignalSource(signal: SIGHUP)
        let (hangUps, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        source.setEventHandler { continuation.yield() }
        source.resume()
        defer { source.cancel() }
        await withTaskCancellationHandler {
            for await _ in hangUps {
                for environment in EnvironmentName.allCases where environments.engine(of: environment) != nil {
                    do throws(EngineError) {
                        _ = try await environments.refreshEngine(environment, deadline: .now + .seconds(10))
                    } catch {
                        runtime.logger.error("SIGHUP: \(environment)'s engine didn't list its names: \(error.description)")
                    }
                }
            }
        } onCancel: {
            continuation.finish()
        }
    }

    /// Asks an engine someone else runs for its names until it first answers (once a second).
    private func watchUntilFirstAnswer(_ launch: Launch) async {
        var logged = false
        while !Task.isCancelled {
            do {
                _ = try await environments.refreshEngine(launch.environment, deadline: .now + .seconds(5))
                return
            } catch {
                if !logged {
                    runtime.logger.warning("\(launch.environment)'s engine at \(launch.engine.baseURL) doesn't answer yet: \(error.description)")
                    logged = true
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

extension EngineSupervisor {
    /// Each configured environment's engine: a started one on a loopback port of its own
    /// (down until it answers), or one at its URL.
    static func launches(for configuration: HostConfiguration, runtime: EngineRuntime) throws -> [EnvironmentName: Launch] {
        let directory = runtime.directory
        let keys = runtime.keys
        var launches: [EnvironmentName: Launch] = [:]
        for (environment, setting) in configuration.engines {
            let engine: EngineApp
            switch setting.source {
            case .command:
                let port = try setting.port ?? EngineProcess.freePort()
                engine = EngineApp(
                    environment: environment, baseURL: "http://127.0.0.1:\(port)", keys: keys, startsDown: true,
                    namesFile: "\(directory)/\(environment.rawValue).json")
            case .url(let url):
                engine = EngineApp(environment: environment, baseURL: url, keys: keys, namesFile: "\(directory)/\(environment.rawValue).json")
            }
            launches[environment] = Launch(environment: environment, engine: engine, setting: setting)
        }
        return launches
    }
}
