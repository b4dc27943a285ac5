import DataAPI
import Foundation
import Logging
import ServiceLifecycle

/// Keeps each environment's engine serving while the host runs: starts the engines the host
/// runs itself, registers their functions and hooks once they answer, restarts them with
/// back-off when they exit (calls answer 503 at once meanwhile), and stops them with the host.
/// An engine at a URL is watched until it first answers, then registered.
struct EngineSupervisor: Service {
    /// One environment's engine and where it comes from.
    struct Launch: Sendable {
        var environment: EnvironmentName
        var engine: EngineApp
        var setting: EngineSetting
    }

    let launches: [Launch]
    let environments: Environments
    /// Where the engine's SDK reaches the host (`LEANCLOUD_API_SERVER`), once it listens.
    let apiServer: ListeningAddress
    /// Where the engine's output goes, beside the host's own log.
    let logs: FunctionLogs
    let logger: Logger

    /// The longest pause between two starts of an engine that keeps exiting.
    static let maxBackOff: Duration = .seconds(30)
    /// An engine that ran this long before exiting is restarted at once.
    static let healthyRun: Duration = .seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // Started once the host listens: their SDK calls back to it from their first line.
            let apiServer = await apiServer.url()
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await refreshOnHangUp() }
                for launch in launches {
                    group.addTask {
                        switch launch.setting.source {
                        case .command(let command, let directory):
                            await supervise(launch, command: command, directory: directory, apiServer: apiServer)
                        case .url:
                            await watchUntilFirstAnswer(launch)
                        }
                    }
                }
            }
        }
    }

    /// Asks every engine for its names again on each SIGHUP (`kill -HUP <host>`), as the reload
    /// route does, until the host stops.
    private func refreshOnHangUp() async {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP)
        let (hangUps, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        source.setEventHandler { continuation.yield() }
        source.resume()
        defer { source.cancel() }
        await withTaskCancellationHandler {
            for await _ in hangUps {
                for launch in launches {
                    do throws(EngineError) {
                        _ = try await environments.refreshEngine(launch.environment, deadline: .now + .seconds(10))
                    } catch {
                        logger.error("SIGHUP: \(launch.environment)'s engine didn't list its names: \(error.description)")
                    }
                }
            }
        } onCancel: {
            continuation.finish()
        }
    }

    /// Starts the engine, registers it once it answers, and starts it again whenever it exits,
    /// until the host stops.
    private func supervise(_ launch: Launch, command: String, directory: String, apiServer: String) async {
        let environment = launch.environment
        var quickExits = 0
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let process: EngineProcess
            do {
                process = try EngineProcess(
                    command: command, directory: directory, environment: variables(for: launch, apiServer: apiServer),
                    output: { line, isError in record(line, isError: isError, environment: environment) })
            } catch {
                launch.engine.markDown("it could not be started: \(error)")
                logger.error("\(environment)'s engine could not be started: \(error)")
                guard await pause(after: &quickExits) else { break }
                continue
            }
            logger.info("\(environment)'s engine started: \(command) (pid \(process.pid)).")
            if await waitUntilReady(launch, process: process) {
                do {
                    _ = try await environments.refreshEngine(environment, deadline: .now + .seconds(10))
                } catch {
                    logger.error("\(environment)'s engine answered, but its names could not be read: \(error.description)")
                }
            } else if !process.hasExited, !Task.isCancelled {
                logger.error(
                    "\(environment)'s engine didn't answer its metadatas within \(launch.setting.startTimeout); it is stopped and started again.")
                await process.stop(grace: launch.setting.stopGrace)
            }
            let status = await withTaskCancellationHandler {
                await process.waitUntilExit()
            } onCancel: {
                // The host stops: so does the engine (SIGTERM, then SIGKILL after the grace).
                Task { await process.stop(grace: launch.setting.stopGrace) }
            }
            if Task.isCancelled {
                launch.engine.markDown("the host is stopping")
                await process.stop(grace: launch.setting.stopGrace)
                break
            }
            launch.engine.markDown("it exited with status \(status) and is being started again")
            logger.error("\(environment)'s engine exited with status \(status); it is started again.")
            if started.duration(to: .now) >= Self.healthyRun { quickExits = 0 }
            guard await pause(after: &quickExits) else { break }
        }
    }

    /// Polls the metadatas of a started engine until it answers, exits, or runs out of time.
    private func waitUntilReady(_ launch: Launch, process: EngineProcess) async -> Bool {
        let deadline = ContinuousClock.now + launch.setting.startTimeout
        while ContinuousClock.now < deadline, !process.hasExited, !Task.isCancelled {
            if (try? await launch.engine.fetchNames(deadline: min(deadline, .now + .seconds(2)))) != nil { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
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
                    logger.warning("\(launch.environment)'s engine at \(launch.engine.baseURL) doesn't answer yet: \(error.description)")
                    logged = true
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Waits before the next start: half a second, doubling with each quick exit, at most
    /// `maxBackOff`. False when the host stops meanwhile.
    private func pause(after quickExits: inout Int) async -> Bool {
        let pause = min(Self.maxBackOff, .milliseconds(500) * (1 << min(quickExits, 6)))
        quickExits += 1
        do {
            try await Task.sleep(for: pause)
            return true
        } catch {
            return false
        }
    }

    /// LeanEngine's variables (`leanengine-protocol.md` § 4.3) over the environment's own, and
    /// the few of the host's a process needs to run (`PATH`, `HOME`, the locale). Nothing else
    /// of the host's environment (its database URL, its SMTP password) reaches the app.
    func variables(for launch: Launch, apiServer: String) -> [String: String] {
        var variables: [String: String] = [:]
        let host = ProcessInfo.processInfo.environment
        for name in ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER"] {
            if let value = host[name] { variables[name] = value }
        }
        for (name, value) in environments.current(launch.environment).variables { variables[name] = value }
        let engine = launch.engine
        let port = URLComponents(string: engine.baseURL)?.port.map(String.init) ?? ""
        let own: [String: String] = [
            "LEANCLOUD_APP_ID": engine.keys.appId, "LEANCLOUD_APP_KEY": engine.keys.appKey,
            "LEANCLOUD_APP_MASTER_KEY": engine.keys.masterKey, "LEANCLOUD_APP_HOOK_KEY": engine.keys.hookKey,
            "LEANCLOUD_APP_PORT": port, "LEANCLOUD_API_SERVER": apiServer,
            "LEANCLOUD_APP_ENV": launch.environment == .production ? "production" : "stage",
            "LEANCLOUD_APP_PROD": launch.environment == .production ? "1" : "0",
            "LEANCLOUD_APP_DOMAIN": "", "LEANCLOUD_REGION": "CN",
        ]
        for (name, value) in own {
            variables[name] = value
            // The deprecated `LC_` twins, which older SDKs read.
            variables["LC_" + name.dropFirst("LEANCLOUD_".count)] = value
        }
        return variables
    }

    /// One line of the engine's output: to the host's log and to the function logs.
    private func record(_ line: String, isError: Bool, environment: EnvironmentName) {
        let metadata: Logger.Metadata = ["engine": .string(environment.rawValue), "environment": .string(environment.rawValue)]
        logs.record(level: isError ? .warning : .info, message: line, metadata: metadata)
        logger.log(level: isError ? .warning : .info, "engine: \(line)", metadata: metadata)
    }
}

extension EngineSupervisor {
    /// Each configured environment's engine: a started one on a loopback port of its own
    /// (down until it answers), or one at its URL.
    static func launches(for configuration: HostConfiguration) throws -> [EnvironmentName: Launch] {
        let directory = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("engines").path
        let keys = EngineApp.Keys(
            appId: configuration.keys.appId, appKey: configuration.keys.appKey, masterKey: configuration.keys.masterKey,
            hookKey: configuration.keys.hookKey)
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
