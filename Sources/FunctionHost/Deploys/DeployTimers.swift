import CloudQueue
import DataAPI
import Foundation
import HTTPTypes
import JSON
import Logging

/// The timers a deploy bundle carries in `timers.json` at its root, so timers can live in the
/// repository next to the code they call:
///
/// ```json
/// [{"name": "nightly", "function": "cleanUp", "cron": "0 0 3 * * ?", "params": {}},
///  {"name": "ping", "function": "keepAlive", "every": 300, "environment": "staging"}]
/// ```
///
/// A timer runs in its `environment` (default production) and is applied when a version
/// carrying it becomes current there (a deploy, a promote, a rollback): a bundle deployed to
/// staging sets its staging timers, and its production ones once it is promoted. The version's
/// timers then replace the ones an earlier version of that environment set (`source: deploy`);
/// a timer of the same name set over HTTP or the CLI (`source: api`) wins and is left alone,
/// so an operator's change is not undone by the next deploy.
struct DeployTimers: Sendable {
    /// The file's name in the bundle.
    static let file = "timers.json"
    /// The most timers one bundle carries.
    static let limit = 100
    /// The largest file taken.
    static let maxBytes = 256 * 1024

    /// Sets and removes the timers (an operator's are kept from a deploy's there too).
    let scheduler: TimerScheduler
    /// The bounds a timer's firing is held to, as a task.
    let settings: QueueSettings
    /// The zone cron expressions are read in when a timer names none (`--timers-timezone`).
    let timeZone: TimeZone
    let logger: Logger

    /// The timers a bundle carries, checked: nil when it has no `timers.json`.
    ///
    /// - Throws: 400 (code 107) naming the entry and what is wrong with it (not JSON, not a
    ///   list, too many, a name twice, a bad cron expression or interval, a bound broken).
    static func definitions(in files: [String: String], timeZone: TimeZone, settings: QueueSettings) throws(HostError)
        -> [TimerDefinition]?
    {
        guard let text = files[file] else { return nil }
        guard text.utf8.count <= maxBytes else { throw refusal("\(file) is larger than \(maxBytes / 1024) KB.") }
        guard let json = try? JSONValue(parsing: Array(text.utf8)), case .array(let entries) = json else {
            throw refusal("\(file) must be a JSON list of timers.")
        }
        guard entries.count <= limit else { throw refusal("\(file) has \(entries.count) timers; at most \(limit) are taken.") }
        var names: Set<String> = []
        var timers: [TimerDefinition] = []
        for (index, entry) in entries.enumerated() {
            let timer: TimerDefinition
            do {
                timer = try TimerDefinition(body: entry, source: .deploy, defaultTimeZone: timeZone).validated(by: settings)
            } catch {
                throw refusal("\(file), timer \(index + 1): \(error.message)")
            }
            guard names.insert(timer.name).inserted else { throw refusal("\(file) names the timer '\(timer.name)' twice.") }
            timers.append(timer)
        }
        return timers
    }

    private static func refusal(_ message: String) -> HostError {
        HostError(status: .badRequest, code: 107, message: message)
    }

    /// Makes the timers of `environment` those of the version now current there (its files):
    /// its timers for that environment are set, the deploy's timers an earlier version set and
    /// this one lacks are removed, and timers set over the API are never touched. A timer whose
    /// definition didn't change keeps its schedule (its next and last firing).
    func apply(_ files: [String: String], to environment: EnvironmentName) async throws {
        // Stored versions were checked when deployed; the functions directory at start was not.
        let wanted: [TimerDefinition]
        do {
            wanted = (try Self.definitions(in: files, timeZone: timeZone, settings: settings) ?? [])
                .filter { $0.environment == environment }
        } catch {
            logger.error("The timers of the version now running on \(environment) were not applied: \(error.message)")
            return
        }
        let existing = Dictionary(try await scheduler.timers().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for timer in existing.values where timer.source == .deploy && timer.environment == environment {
            if !wanted.contains(where: { $0.name == timer.name }) { try await scheduler.remove(name: timer.name) }
        }
        for timer in wanted {
            if let current = existing[timer.name] {
                if current.source == .api {
                    logger.info("Timer '\(timer.name)' of the deploy is not applied: one set over the API has its name.")
                    continue
                }
                if current.environment != environment {
                    // Another environment's deploy set a timer of this name. Production's wins:
                    // staging's code must not be able to switch off a production schedule.
                    guard environment == .production else {
                        logger.warning(
                            "Timer '\(timer.name)' of \(environment)'s deploy is not applied: \(current.environment)'s deploy has one of that name.")
                        continue
                    }
                    logger.warning("Timer '\(timer.name)' of production's deploy replaces \(current.environment)'s timer of that name.")
                }
                if Self.definition(of: current) == timer { continue }
            }
            try await scheduler.save(timer)
        }
    }

    /// A stored timer as it was defined, without what firing it recorded.
    private static func definition(of timer: TimerDefinition) -> TimerDefinition {
        var timer = timer
        timer.nextFireAt = nil
        timer.lastFiredAt = nil
        timer.lastTaskId = nil
        return timer
    }
}
