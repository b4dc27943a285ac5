import CloudQueue
import DataAPI
import JSON
import Logging
import ServiceLifecycle

/// This host's share of the Cloud Queue and the timers, run while the server runs (a service of
/// the application, as LiveQuery's delivery is) and stopped on shutdown: the loops end, and a
/// run in flight is left to its lease (another host, or this one restarted, takes it back).
struct QueueService: Service {
    let queue: CloudQueue

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await queue.run()
        }
    }

    /// The tasks waiting and running now, on every host (`functionhost_queue_waiting_tasks`):
    /// counted in the database at each scrape, as the queue's state is there.
    static func waitingGauges(data: DataService) async -> [HostMetrics.Gauge] {
        var gauges: [HostMetrics.Gauge] = []
        for status in [TaskStatus.queued, .running] {
            var query = ObjectQuery(className: "_CloudTask", limit: 0)
            var count = 0
            do {
                query.predicate = try QueryPredicate(where: ["status": .string(status.rawValue)])
                count = try await data.find(query, withCount: true, caller: Caller.master.withoutHooks).count ?? 0
            } catch {
                // No task stored yet (the class doesn't exist), or the database failing: nothing waits that we know of.
                count = 0
            }
            gauges.append(.init(name: "functionhost_queue_waiting_tasks", labels: [("status", status.rawValue)], value: Double(count)))
        }
        return gauges
    }
}
