import DataAPI
import Foundation
import JSON
import LiveQuery
import LiveQueryPostgres
import PostgresNIO
import TestSupport
import Testing

/// Two or more hosts on one PostgreSQL database, each with its own change feed: every change is
/// heard by every host once, in commit order per object, however large, across a lost
/// connection; the table stays bounded. Skipped without `FUNCTIONHOST_TEST_DATABASE_URL`.
@Suite(.enabled(if: TestDatabase.isPostgres)) struct PostgresChangeFeedTests {
    @Test func aChangePublishedOnOneHostIsHeardOnEveryHostOnce() async throws {
        let cluster = try FeedCluster()
        let a = try await cluster.host()
        let b = try await cluster.host()
        let onA = Heard(a.changes())
        let onB = Heard(b.changes())
        await a.publish(todo("first"))
        await b.publish(todo("second", .update, ["title": "from B"]))
        // Each host hears both, in the order they were written, and nothing twice: the change
        // after "first" is "second" on both.
        #expect(await onA.ids(2) == ["first", "second"])
        #expect(await onB.ids(2) == ["first", "second"])
        await a.publish(todo("third", .delete))
        let third = await onB.next()
        #expect(third?.kind == .delete)
        #expect(await onA.ids(1) == ["third"])
        #expect(a.statistics.counts.received == 3 && b.statistics.counts.received == 3)
        await cluster.stop()
    }

    @Test func everyFieldOfTheChangeCrosses() async throws {
        let cluster = try FeedCluster()
        let a = try await cluster.host()
        let b = try await cluster.host()
        let onB = Heard(b.changes())
        let sent = CommittedChange(
            kind: .update, className: "Todo", object: [
                "objectId": "x", "title": "new", "n": 2, "tags": ["a", 1.5, nil],
                // What PostgreSQL's text can't hold raw, and what would break SQL built by hand.
                "nul": "a\u{0}b", "quote'); DROP TABLE fh_changes; --": "\"'\\",
            ],
            original: ["objectId": "x", "title": "old"], updatedKeys: ["title", "n"], environment: .staging)
        await a.publish(sent)
        let heard = try #require(await onB.next())
        #expect(heard.kind == .update && heard.className == "Todo" && heard.environment == .staging)
        #expect(heard.object == sent.object && heard.original == sent.original && heard.updatedKeys == ["title", "n"])
        await cluster.stop()
    }

    @Test func anObjectPastNotifysPayloadLimitCrosses() async throws {
        let cluster = try FeedCluster()
        let a = try await cluster.host()
        let b = try await cluster.host()
        let onB = Heard(b.changes())
        // 200 000 bytes of text: 25 times what a NOTIFY payload may carry.
        let large = String(repeating: "0123456789", count: 20_000)
        await a.publish(todo("big", .create, ["text": .string(large)]))
        let heard = try #require(await onB.next())
        #expect(heard.object["text"]?.stringValue == large)
        #expect(a.statistics.counts.publishFailures == 0)
        await cluster.stop()
    }

    @Test func readsBoundedByRowsAndBytesStillDeliverEveryChangeInOrder() async throws {
        let cluster = try FeedCluster()
        var small = PostgresChangeFeedSettings()
        small.batchSize = 2
        small.batchBytes = 1_000
        let a = try await cluster.host()
        let b = try await cluster.host(settings: small)
        let onB = Heard(b.changes())
        // Each of B's reads returns one of these (the first row always, then 1 000 bytes at most).
        let text = String(repeating: "x", count: 5_000)
        let ids = (0..<5).map { "big\($0)" }
        for id in ids { await a.publish(todo(id, .create, ["text": .string(text)])) }
        #expect(await onB.ids(5) == ids)
        await cluster.stop()
    }

    @Test func concurrentWritersOnTwoHostsAreHeardInCommitOrderPerObject() async throws {
        let cluster = try FeedCluster()
        // Two hosts, each its own engine (pool) and data service announcing on its own feed.
        let storageA = try await PostgresStorage(location: cluster.location)
        let storageB = try await PostgresStorage(location: cluster.location)
        let a = try await cluster.host(isCurrent: PostgresChangeFeed.isStored(in: StorageEngines(storageA)))
        let b = try await cluster.host(isCurrent: PostgresChangeFeed.isStored(in: StorageEngines(storageB)))
        var serviceA = DataService(engines: StorageEngines(storageA))
        serviceA.listeners = [ChangeFeedPublisher(feed: a)]
        var serviceB = DataService(engines: StorageEngines(storageB))
        serviceB.listeners = [ChangeFeedPublisher(feed: b)]
        let onA = Heard(a.changes())
        let onB = Heard(b.changes())
        let created = try await serviceA.create("Counter", body: ["n": 0], caller: .master)
        let id = created.objectId
        #expect(await onA.next()?.kind == .create)
        #expect(await onB.next()?.kind == .create)
        let perHost = 12
        await withTaskGroup(of: Void.self) { group in
            for service in [serviceA, serviceB] {
                for _ in 0..<perHost {
                    group.addTask {
                        _ = try? await service.update(
                            "Counter", id: id, body: ["n": ["__op": "Increment", "amount": 1]], caller: .master)
                    }
                }
            }
        }
        let final = Int64(2 * perHost)
        let stored = try #require(try await storageA.fetch("Counter", id: id))
        #expect(stored.fields["n"]?.intValue == final)
        // Every host hears the states in increasing order and ends on the last: an update whose
        // object had moved on when it was announced is folded into the later one, never heard
        // after it.
        var sequences: [[Int64]] = []
        for heard in [onA, onB] {
            var values: [Int64] = []
            while values.last != final {
                guard let change = await heard.next() else { break }
                values.append(change.object["n"]?.intValue ?? -1)
            }
            #expect(values == values.sorted() && Set(values).count == values.count, "\(values)")
            sequences.append(values)
        }
        #expect(sequences[0] == sequences[1])
        let published: Int = a.statistics.counts.published + b.statistics.counts.published
        let superseded: Int = a.statistics.counts.superseded + b.statistics.counts.superseded
        // The create and every update: each written to the table or folded into a later one.
        #expect(published + superseded == 1 + 2 * perHost)
        #expect(published == 1 + sequences[0].count)
        await cluster.stop()
        await storageA.close()
        await storageB.close()
    }

    @Test func aDeleteIsAnnouncedOnlyOnceTheObjectIsGone() async throws {
        let cluster = try FeedCluster()
        let storage = try await PostgresStorage(location: cluster.location)
        let a = try await cluster.host(isCurrent: PostgresChangeFeed.isStored(in: StorageEngines(storage)))
        var service = DataService(engines: StorageEngines(storage))
        service.listeners = [ChangeFeedPublisher(feed: a)]
        let onA = Heard(a.changes())
        let object = try await service.create("Todo", body: ["title": "x"], caller: .master)
        // An update announced after the object was deleted carries a state no longer stored.
        let stale = CommittedChange(
            kind: .update, className: "Todo", object: object.restJSON(), updatedKeys: ["title"], environment: .production)
        try await service.delete("Todo", id: object.objectId, caller: .master)
        await a.publish(stale)
        let marker = try await service.create("Todo", body: ["title": "marker"], caller: .master)
        #expect(await onA.next()?.kind == .create)
        #expect(await onA.next()?.kind == .delete)
        #expect(await onA.ids(1) == [marker.objectId])
        #expect(a.statistics.counts.superseded == 1)
        await cluster.stop()
        await storage.close()
    }

    @Test func aHostWhoseConnectionDropsCatchesUpOnWhatItMissed() async throws {
        let cluster = try FeedCluster()
        let a = try await cluster.host()
        let (b, onB, gate) = try await disconnectedHost(in: cluster, hearing: a)
        // B is now waiting to reconnect: what A publishes meanwhile can only reach B from the table.
        await a.publish(todo("during-1"))
        await a.publish(todo("during-2"))
        gate.open()
        #expect(await onB.ids(2) == ["during-1", "during-2"])
        await a.publish(todo("after"))
        #expect(await onB.ids(1) == ["after"])
        #expect(b.statistics.counts.reconnects == 1 && b.statistics.counts.lost == 0)
        await cluster.stop()
    }

    @Test func aHostCutOffPastRetentionCountsWhatItLost() async throws {
        let cluster = try FeedCluster()
        var keepNone = PostgresChangeFeedSettings()
        keepNone.retainedChanges = 0
        let a = try await cluster.host(settings: keepNone)
        let (b, onB, gate) = try await disconnectedHost(in: cluster, hearing: a)
        await a.publish(todo("missed-1"))
        await a.publish(todo("missed-2"))
        try await a.trim()
        gate.open()
        await a.publish(todo("after"))
        // B says what it lost and goes on from there: the next change it hears is the next one.
        #expect(await onB.ids(1) == ["after"])
        #expect(b.statistics.counts.lost == 2)
        await cluster.stop()
    }

    @Test func retentionTrimsByCountAndByAge() async throws {
        let cluster = try FeedCluster()
        var keepTwo = PostgresChangeFeedSettings()
        keepTwo.retainedChanges = 2
        let a = try await cluster.host(settings: keepTwo)
        let onA = Heard(a.changes())
        for index in 0..<5 { await a.publish(todo("c\(index)")) }
        #expect(await onA.ids(5) == ["c0", "c1", "c2", "c3", "c4"])
        try await a.trim()
        #expect(try await a.retainedCount() == 2)
        var keepNothingOld = PostgresChangeFeedSettings()
        keepNothingOld.retainedAge = .zero
        let b = try await cluster.host(settings: keepNothingOld)
        try await b.trim()
        #expect(try await b.retainedCount() == 0)
        // A host opened after the trim starts past it and loses nothing.
        let c = try await cluster.host()
        let onC = Heard(c.changes())
        await a.publish(todo("c5"))
        #expect(await onC.ids(1) == ["c5"])
        #expect(c.statistics.counts.lost == 0)
        await cluster.stop()
    }

    @Test func aRowThatIsNotAChangeIsSkippedNotFatal() async throws {
        let cluster = try FeedCluster()
        let a = try await cluster.host()
        let onA = Heard(a.changes())
        // What no host writes, but a damaged or hostile row must not stop every host's feed.
        try await cluster.execute("INSERT INTO fh_changes (at, payload) VALUES (now(), '{\"kind\":\"explode\"}')")
        try await cluster.execute("INSERT INTO fh_changes (at, payload) VALUES (now(), 'not json')")
        await a.publish(todo("next"))
        #expect(await onA.ids(1) == ["next"])
        #expect(a.statistics.counts.unreadable == 2)
        await cluster.stop()
    }

    /// A host B that heard a change of `a`, then lost its connection (terminated by the server)
    /// and now waits at the returned gate before reconnecting.
    private func disconnectedHost(in cluster: FeedCluster, hearing a: PostgresChangeFeed) async throws
        -> (PostgresChangeFeed, Heard, Gate)
    {
        let gate = Gate()
        var settings = PostgresChangeFeedSettings()
        settings.backOff = { _ in await gate.pass() }
        let b = try await cluster.host(settings: settings)
        let onB = Heard(b.changes())
        await a.publish(todo("before"))
        #expect(await onB.ids(1) == ["before"])
        try await cluster.execute("SELECT pg_terminate_backend(\(try #require(b.listenerProcessID)))")
        var arrivals = gate.arrivals.makeAsyncIterator()
        _ = await arrivals.next()
        return (b, onB, gate)
    }
}
