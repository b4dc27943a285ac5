import DataAPI
import Foundation
import HTTPTypes
import JSON
import LiveQuery
import LiveQueryPostgres
import TestSupport
import Testing

@testable import FunctionHost

/// Two servers in this process on one PostgreSQL schema, as two hosts behind a load balancer:
/// each announces its committed writes (REST here) on the database's change table, so a feed
/// following it hears the writes of both, in commit order. Skipped without
/// `FUNCTIONHOST_TEST_DATABASE_URL`.
@Suite(.enabled(if: TestDatabase.isPostgres)) struct ClusterChangeFeedTests {
    @Test func restWritesOnTwoHostsReachTheSharedFeedInCommitOrder() async throws {
        let location = try #require(TestDatabase.server).inSchema("t_cluster_" + Self.uniqueSuffix())
        let directoryA = try TestServer.makeDataDirectory()
        let directoryB = try TestServer.makeDataDirectory()
        defer {
            for directory in [directoryA, directoryB] { try? FileManager.default.removeItem(atPath: directory) }
        }
        try await TestServer.run(dataDirectory: directoryA, configure: { $0.database = location; $0.liveQueryAcrossHosts = true }) { a in
            try await TestServer.run(dataDirectory: directoryB, configure: { $0.database = location; $0.liveQueryAcrossHosts = true }) { b in
                // A third follower of the table, opened before the writes: it hears what every
                // host hears.
                let observer = try await PostgresChangeFeed.open(location: location, isCurrent: { _ in true })
                let following = Task { await observer.run() }
                // It watches the class, as a host with a subscription to it would: both hosts
                // announce its writes once this returns.
                await observer.watch(["Todo"])
                let heard = Self.collect(3, from: observer.changes())
                let id = try await a.create("Todo", ["title": "from A"])
                #expect(try await b.put("/1.1/classes/Todo/\(id)", ["title": "from B"]).status == .ok)
                #expect(try await a.delete("/1.1/classes/Todo/\(id)").status == .ok)
                let changes = await heard.value
                following.cancel()
                await following.value
                await observer.close()
                #expect(changes.map(\.kind) == [.create, .update, .delete])
                #expect(changes.map { $0.object["objectId"]?.stringValue } == [id, id, id])
                #expect(changes.map { $0.object["title"]?.stringValue } == ["from A", "from B", "from B"])
                #expect(changes.dropFirst().first?.updatedKeys == ["title"])
                #expect(changes.dropFirst().first?.original?["title"]?.stringValue == "from A")
            }
        }
    }

    @Test func aSubscriberOnOneHostGetsTheEventsOfRESTWritesOnAnother() async throws {
        let location = try #require(TestDatabase.server).inSchema("t_cluster_" + Self.uniqueSuffix())
        try await LiveQueryServer.run(database: location) { a, _ in
            try await LiveQueryServer.run(database: location) { b, hubB in
                // Ada may read what she writes, Bob's Todo is his alone: the event of his write,
                // made on host A, must not reach her subscription on host B.
                let people = try await ACLTests.people(a)
                let queryID = try await LiveQueryServer.subscribe(
                    b, ["className": "Todo", "where": [:]], headers: people.adaSession)
                let sink = await LiveQueryServer.connect(hubB)
                let bobOnly: JSONValue = [people.bob: ["read": true, "write": true]]
                let hidden = try await a.post("/1.1/classes/Todo", headers: people.bobSession, ["title": "Bob's own", "ACL": bobOnly])
                #expect(hidden.status == .created)
                let id = try await a.create("Todo", ["title": "from A"], headers: people.adaSession)
                #expect(try await a.put("/1.1/classes/Todo/\(id)", headers: people.adaSession, ["title": "edited on A"]).status == .ok)
                let created = try #require(await sink.json(1), "\(sink.events)")
                let updated = try #require(await sink.json(2), "\(sink.events)")
                #expect(created["query_id"]?.stringValue == queryID)
                #expect(created["op"]?.stringValue == "create" && created["object"]?["title"]?.stringValue == "from A")
                #expect(updated["op"]?.stringValue == "update" && updated["object"]?["title"]?.stringValue == "edited on A")
                #expect(!sink.events.contains { $0.json.contains("Bob's own") })
                // Host B received all three changes (its subscriber's view dropped Bob's), host A
                // published them; each says so in its metrics.
                let metricsA = try await a.get("/metrics", headers: Headers.master).text
                let metricsB = try await b.get("/metrics", headers: Headers.master).text
                #expect(try #require(Self.gauge("functionhost_livequery_feed_published_total", in: metricsA)) >= 3)
                #expect(try #require(Self.gauge("functionhost_livequery_feed_received_total", in: metricsB)) >= 3)
                #expect(Self.gauge("functionhost_livequery_feed_reconnects_total", in: metricsB) == 0)
            }
        }
    }

    @Test func aWriteOnOneHostJustAfterASubscribeOnAnotherReturnsReachesTheSubscriber() async throws {
        let location = try #require(TestDatabase.server).inSchema("t_cluster_" + Self.uniqueSuffix())
        // The default configuration: across hosts is on for PostgreSQL.
        try await LiveQueryServer.run(database: location) { a, hubA in
            try await LiveQueryServer.run(database: location) { b, hubB in
                // Neither host watches anything yet: A announces no write of these classes.
                for className in ["Race0", "Race1", "Race2"] { #expect(!hubA.watches(className)) }
                // Each round: B's client is connected, subscribes to a class no host watched, and
                // A writes it as soon as the subscribe is answered.
                for round in 0..<3 {
                    let className = "Race\(round)"
                    let id = "livequery-race\(round)"
                    let sink = await LiveQueryServer.connect(hubB, id)
                    _ = try await LiveQueryServer.subscribe(b, ["className": .string(className), "where": [:]], id: id, headers: Headers.master)
                    let written = try await a.create(className, ["round": .int(Int64(round))])
                    let event = try #require(await sink.json(1), "\(sink.events)")
                    #expect(event["op"]?.stringValue == "create" && event["object"]?["objectId"]?.stringValue == written)
                }
                let metricsA = try await a.get("/metrics", headers: Headers.master).text
                #expect(try #require(Self.gauge("functionhost_livequery_feed_published_total", in: metricsA)) >= 3)
            }
        }
    }

    /// The first `count` changes of a stream, or fewer (a recorded failure) when they don't all
    /// arrive within 20 s.
    static func collect(_ count: Int, from stream: AsyncStream<CommittedChange>) -> Task<[CommittedChange], Never> {
        let collecting = Task {
            var changes: [CommittedChange] = []
            for await change in stream {
                changes.append(change)
                if changes.count == count { break }
            }
            return changes
        }
        return Task {
            let deadline = Task {
                try await Task.sleep(for: .seconds(20))
                collecting.cancel()
            }
            let changes = await collecting.value
            deadline.cancel()
            if changes.count < count { Issue.record("Only \(changes.count) of \(count) changes arrived within 20 s") }
            return changes
        }
    }

    /// The value of an unlabelled gauge in `/metrics`' text.
    static func gauge(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    static func uniqueSuffix() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
    }
}
