import DataAPI
import Foundation
import JSON
import LiveQuery
import LiveQueryPostgres
import TestSupport
import Testing

/// Hosts on one PostgreSQL database record the classes their subscriptions watch, so a host
/// announces only writes some live host may deliver, and a class watched on one host is announced
/// by every host once `watch` returns. Skipped without `FUNCTIONHOST_TEST_DATABASE_URL`.
@Suite(.enabled(if: TestDatabase.isPostgres)) struct PostgresWatchTests {
    @Test func aClassWatchedOnOneHostIsAnnouncedByEveryHostOnceWatchReturns() async throws {
        let cluster = try FeedCluster()
        let a = try await cluster.host()
        let b = try await cluster.host()
        for host in [a, b] { #expect(await Self.within { await host.untilWatch { $0.followsWatches } }) }
        #expect(!a.announces("Todo") && !b.announces("Todo"))
        await b.watch(["Todo"])
        // No wait here: `watch` returned after every live host had loaded the class.
        #expect(a.announces("Todo") && b.announces("Todo"))
        #expect(!a.announces("Note"))
        await a.watch(["Note"])
        #expect(b.announces("Note") && b.announces("Todo"))
        await cluster.stop()
    }

    @Test func anUnwatchedWriteIsNotWrittenToTheChangeTable() async throws {
        let cluster = try FeedCluster()
        let a = try await cluster.host()
        let b = try await cluster.host()
        #expect(await Self.within { await a.untilWatch { $0.followsWatches } })
        let publisher = ChangeFeedPublisher(feed: a, interest: { a.announces($0) })
        let write = ObjectEvent(className: "Note", object: ["objectId": "n1"], caller: .master)
        await publisher.didWrite(.create, write)
        #expect(a.statistics.counts.published == 0)
        #expect(try await a.retainedCount() == 0)
        let onA = Heard(a.changes())
        await b.watch(["Note"])
        await publisher.didWrite(.update, write)
        #expect(a.statistics.counts.published == 1)
        #expect(await onA.next()?.kind == .update)
        await cluster.stop()
    }

    @Test func aGoneHostsClassesExpireWithItsLease() async throws {
        let cluster = try FeedCluster()
        var short = PostgresChangeFeedSettings()
        short.watchLease = .seconds(1)
        let a = try await cluster.host(settings: short)
        let b = try await PostgresChangeFeed.open(location: cluster.location, settings: short, isCurrent: { _ in true })
        let following = Task { await b.run() }
        #expect(await Self.within { await b.untilWatch { $0.followsWatches } })
        await b.watch(["Todo"])
        #expect(a.announces("Todo"))
        // B stops renewing (a host that died): once its lease runs out, A's next load drops it.
        following.cancel()
        await following.value
        await b.close()
        #expect(await Self.within { await a.untilWatch { !$0.announces("Todo") } })
        await cluster.stop()
    }

    @Test func aHostThatDoesNotFollowTheWatchedClassesAnnouncesEveryWrite() async throws {
        let cluster = try FeedCluster()
        // Opened, not run: it has loaded nothing, so it can't know what others watch.
        let idle = try await PostgresChangeFeed.open(location: cluster.location, isCurrent: { _ in true })
        #expect(!idle.followsWatches && idle.announces("Anything"))
        await idle.close()
        await cluster.stop()
    }

    /// Whether `body` returned within 20 s (a bound that only fails, never paces, the test).
    static func within(_ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
