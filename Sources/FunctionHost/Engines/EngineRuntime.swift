import DataAPI
import Foundation
import Logging
import Synchronization

/// What every engine process of this host shares: where the host listens, where their output
/// goes, the keys they are started with, where deployed apps are written out, and the runners
/// alive now (stopped with the host).
struct EngineRuntime: Sendable {
    /// Where the engines' SDKs reach the host (`LEANCLOUD_API_SERVER`), once it listens.
    let apiServer: ListeningAddress
    /// Where their output goes, beside the host's own log.
    let logs: FunctionLogs
    let logger: Logger
    /// The keys every engine is started with and checks.
    let keys: EngineApp.Keys
    /// `DATA_DIR/engines`: the names each engine listed last, and deployed apps' folders.
    let directory: String
    /// The runners alive now.
    let runners = EngineRunners()

    /// Where deployed engine apps are written out.
    var releases: EngineReleases { EngineReleases(root: "\(directory)/releases") }

    /// One line of an engine's output: to the host's log and to the function logs.
    func record(_ line: String, isError: Bool, environment: EnvironmentName) {
        let metadata: Logger.Metadata = ["engine": .string(environment.rawValue), "environment": .string(environment.rawValue)]
        logs.record(level: isError ? .warning : .info, message: line, metadata: metadata)
        logger.log(level: isError ? .warning : .info, "engine: \(line)", metadata: metadata)
    }
}

/// The engine runners alive on this host, so the host stops every one of them when it stops.
final class EngineRunners: Sendable {
    private let runners = Mutex<[ObjectIdentifier: EngineRunner]>([:])

    /// Counts a runner in.
    func add(_ runner: EngineRunner) {
        runners.withLock { $0[ObjectIdentifier(runner)] = runner }
    }

    /// Counts a retired runner out.
    func remove(_ runner: EngineRunner) {
        runners.withLock { $0[ObjectIdentifier(runner)] = nil }
    }

    /// The runners alive now.
    var all: [EngineRunner] { runners.withLock { Array($0.values) } }

    /// Stops every runner at once (the host stops: nothing is drained).
    func stopAll() async {
        await withTaskGroup(of: Void.self) { group in
            for runner in all { group.addTask { await runner.retire(drain: .zero) } }
        }
    }
}
