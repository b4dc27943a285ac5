import Logging
import ServiceLifecycle

/// Keeps this host running what the database says each environment runs: a deploy, promote,
/// rollback or variable change made through another host sharing the database is live here
/// within one interval.
///
/// A periodic check rather than a notification: it works the same on SQLite (several processes
/// on one file) and PostgreSQL, costs one indexed read of two small records per interval, and
/// can't miss a change the way a dropped notification connection could.
struct DeployWatch: Service {
    let deployer: Deployer
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    try await deployer.sync()
                } catch {
                    logger.warning("Checking for deploys made on other hosts failed: \(error)")
                }
            }
        }
    }
}
