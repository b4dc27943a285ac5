import DataAPI
import Foundation
import Synchronization
import JSON
import LiveQuery
import LiveQueryPostgres
import PostgresNIO
import TestSupport
import Testing

/// Several "hosts" on one PostgreSQL schema of the test server: each a `PostgresChangeFeed`
/// of its own, following the same change table.
struct FeedCluster {
    /// The schema this test's hosts share.
    let location: PostgresLocation
    /// The feeds opened, to stop at the end.
    private let opened = OpenedFeeds()

    init() throws {
        let server = try #require(TestDatabase.server)
        location = server.inSchema("t_feed_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
    }

    /// A host's feed, following the table until `stop()`.
    func host(
        settings: PostgresChangeFeedSettings = PostgresChangeFeedSettings(),
        isCurrent: @escaping @Sendable (CommittedChange) async -> Bool = { _ in true }
    ) async throws -> PostgresChangeFeed {
        let feed = try await PostgresChangeFeed.open(location: location, settings: settings, isCurrent: isCurrent)
        opened.add(feed, Task { await feed.run() })
        return feed
    }

    /// Stops every feed, ending their streams, and closes their connections.
    func stop() async {
        for (feed, task) in opened.all {
            task.cancel()
            await task.value
            await feed.close()
        }
    }

    /// Runs one statement on a connection of its own (not the feeds').
    func execute(_ query: PostgresQuery) async throws {
        let client = PostgresClient(configuration: try PostgresChangeFeed.configuration(location, PostgresChangeFeedSettings()))
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        try await client.query(query)
    }
}

/// The feeds a cluster opened.
final class OpenedFeeds: Sendable {
    private let feeds = Mutex<[(PostgresChangeFeed, Task<Void, Never>)]>([])
    func add(_ feed: PostgresChangeFeed, _ task: Task<Void, Never>) { feeds.withLock { $0.append((feed, task)) } }
    var all: [(PostgresChangeFeed, Task<Void, Never>)] { feeds.withLock { $0 } }
}

/// Reads a stream one change at a time, failing the test when none comes within the bound
/// (a bound that only fails, never paces, the test).
final class Heard: @unchecked Sendable {
    // Only the test's task reads it, one `next` at a time.
    private var iterator: AsyncStream<CommittedChange>.Iterator

    init(_ stream: AsyncStream<CommittedChange>) {
        iterator = stream.makeAsyncIterator()
    }

    /// The next change, or nil (a recorded failure) when none arrives within 20 s.
    func next(sourceLocation: SourceLocation = #_sourceLocation) async -> CommittedChange? {
        let box = IteratorBox(iterator)
        let change = await withTaskGroup(of: CommittedChange??.self) { group in
            group.addTask { await box.next() }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return .some(nil)
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
        iterator = box.iterator
        if change == nil { Issue.record("No change arrived within 20 s", sourceLocation: sourceLocation) }
        return change
    }

    /// The ids of the next `count` changes.
    func ids(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> [String] {
        var ids: [String] = []
        for _ in 0..<count {
            guard let change = await next(sourceLocation: sourceLocation) else { break }
            ids.append(change.object["objectId"]?.stringValue ?? "?")
        }
        return ids
    }
}

/// Moves an iterator into a child task and back.
private final class IteratorBox: @unchecked Sendable {
    var iterator: AsyncStream<CommittedChange>.Iterator
    init(_ iterator: AsyncStream<CommittedChange>.Iterator) { self.iterator = iterator }
    func next() async -> CommittedChange?? { .some(await iterator.next()) }
}

/// A change of a `Todo` with an id (and any fields).
func todo(_ id: String, _ kind: CommittedChange.Kind = .create, _ fields: [String: JSONValue] = [:]) -> CommittedChange {
    var object = fields
    object["objectId"] = .string(id)
    return CommittedChange(kind: kind, className: "Todo", object: object, environment: .production)
}

/// A gate a test holds closed until it opens it, and a signal of who waits at it.
final class Gate: Sendable {
    private let opened: AsyncStream<Void>
    private let openContinuation: AsyncStream<Void>.Continuation
    /// One element each time someone starts waiting.
    let arrivals: AsyncStream<Void>
    private let arrival: AsyncStream<Void>.Continuation

    init() {
        (opened, openContinuation) = AsyncStream.makeStream()
        (arrivals, arrival) = AsyncStream.makeStream()
    }

    /// Waits until the gate opens (or the task is cancelled).
    func pass() async {
        arrival.yield()
        for await _ in opened { return }
    }

    /// Opens the gate for good.
    func open() { openContinuation.finish() }
}
