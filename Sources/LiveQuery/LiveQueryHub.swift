public import DataAPI
public import Foundation
public import JSON
import Synchronization

/// The subscriptions of one host: it answers subscribe and unsubscribe (the REST routes), takes
/// the realtime connections logged in with a subscription id (`LiveQueryConnections`), and hears
/// every committed write on one change feed, turning each into the events each subscriber may
/// see (`LiveEventMaker`) and handing them to that subscriber's connections.
///
/// Subscriptions live in memory, by subscription id, and outlive a connection by
/// `LiveQueryLimits.idleLifetime` (`unclaimedLifetime` for an id no connection ever logged in
/// with): a device that reconnects within it finds them; one that comes back later subscribes
/// again (every SDK does after a reconnect) and gets the same query ids. Events for an id with
/// no connection are not kept.
///
/// The id alone is not enough to receive: a subscription's events go to the connections logged
/// in with its id from the client address that made it (`LiveQuerySink.client`), and it ends
/// with the session it was made with (the user's token changes, the user is deleted).
public final class LiveQueryHub: LiveQueryConnections {
    /// The bounds in force.
    public let limits: LiveQueryLimits
    private let data: DataService
    private let table: SubscriptionTable
    private let changes: AsyncStream<CommittedChange>
    /// Where the classes subscriptions watch are recorded, for the other hosts' publishers.
    private let feed: any ChangeFeed
    private let environmentsShareData: Bool
    private let delivered = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let slowConnections = Atomic<Int>(0)
    /// The `$regex` evaluations the per-change budget (`StandingView.regexBudget`) cut short.
    private let regexTally = RegexBudgetTally()
    private let changesLost = Atomic<Int>(0)
    private let lostEventConnections = Atomic<Int>(0)

    /// How many subscriptions' events are worked out at once for one change.
    private static let concurrentViews = 16

    /// Creates the hub and starts listening to the feed (its changes from now on are kept for
    /// `run()`).
    ///
    /// - Parameters:
    ///   - data: the data service rights are worked out with (the host's, hooked or not: no
    ///     find hook runs for a subscription).
    ///   - environmentsShareData: whether staging reads and writes production's data; then a
    ///     write in either reaches subscribers of both.
    ///   - now: the clock subscriptions expire by.
    public init(
        data: DataService, feed: any ChangeFeed, limits: LiveQueryLimits = LiveQueryLimits(),
        environmentsShareData: Bool = true, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.data = data
        self.limits = limits
        self.environmentsShareData = environmentsShareData
        self.table = SubscriptionTable(limits: limits, now: now)
        self.changes = feed.changes()
        self.feed = feed
    }

    // MARK: Subscriptions

    /// Subscribes `caller` to a query (the request's `query` object) under subscription id `id`
    /// (a new one when nil). The same id and query always get the same query id; subscribing
    /// again replaces the subscription (and who it acts as).
    ///
    /// - Throws: 1 for a malformed id or too many subscriptions of one id; 102, 103, 119, 403
    ///   as a `find` of the query by `caller` would be refused (and 102 for inner queries);
    ///   119 for the same query of the id subscribed by someone else from another address;
    ///   429 past `subscriptionsPerAddress` of `client` (the request's address) or
    ///   `subscriptionsPerUser` of the caller's user (the master key is bound by neither); 511
    ///   when the host holds as many subscriptions as it may, or the app key (no user) as many
    ///   as `subscriptionsWithoutUser`; what a `beforeSubscribe` hook threw.
    public func subscribe(id: String?, query json: JSONValue?, caller: Caller, client: String? = nil) async throws -> LiveQuerySubscription {
        let id = id ?? "livequery-" + UUID().uuidString
        guard isValidSubscriptionID(id) else {
            throw DataAPIError(.badParameters, "id must be 1 to \(limits.maxIDLength) letters, digits and - _ . :")
        }
        var query = try StandingQueryParsing.query(from: json, limits: limits)
        // The app's `beforeSubscribe` may narrow the query or refuse it; what it leaves is
        // checked as the client's would be.
        let event = ObjectEvent(className: query.className, object: try query.parameters(), caller: caller)
        if let hooked = try await data.runBefore(.beforeSubscribe, event) {
            query = try StandingQueryParsing.query(
                from: .object(hooked.object.merging(["className": .string(query.className)]) { _, name in name }), limits: limits)
        }
        try await data.checkStandingQuery(query, caller: caller)
        let queryID = QueryID.make(subscriptionID: id, query: query)
        let subscription = Subscription(
            id: id, queryID: queryID, query: query, caller: caller, owners: Self.owners(caller, client: client),
            client: SubscriptionTable.clientKey(client))
        try table.add(subscription)
        // The session may have ended while the subscribe was checked: the hub ended its
        // subscriptions then, before this one was added. Read again now that it is in the table,
        // so a session change committed from here on ends it, and one committed before is seen.
        if let token = subscription.sessionToken, !caller.isMaster {
            let holder = try? await data.user(forSessionToken: token, in: caller.environment)
            guard let holder, holder.objectId == caller.userId else {
                _ = try? table.remove(id: id, queryID: queryID)
                throw DataAPIError(.userNotFound, "Could not find user.")
            }
        }
        // Returns once every host announces writes of the class: one committed after this
        // answer reaches the subscription, whichever host made it.
        await feed.watch(table.watchedClasses)
        return LiveQuerySubscription(id: id, queryID: queryID)
    }

    /// Who a subscription counts against: its client address (an IPv6 client is its /64, as
    /// the other per-client limits key it) and its user, or the app key's share when it has
    /// none; nobody for the master key.
    static func owners(_ caller: Caller, client: String?) -> [String] {
        guard !caller.isMaster else { return [] }
        var owners: [String] = []
        if let client = SubscriptionTable.clientKey(client) { owners.append("address:" + client) }
        owners.append(caller.userId.map { SubscriptionTable.userPrefix + $0 } ?? SubscriptionTable.appOwner)
        return owners
    }

    /// How many subscriptions count against a client address now (the master key's do not).
    public func subscriptionCount(ofAddress client: String) -> Int {
        table.count(of: "address:" + SendLimits.client(ofAddress: client))
    }

    /// Ends a subscription; whether it existed.
    @discardableResult
    /// Ends a subscription as a client asks: only its own principal, or a request from the
    /// client address that made it, may (as only they may replace it); whether it was there.
    ///
    /// - Throws: 119 for someone else from another address.
    public func unsubscribe(id: String, queryID: String, caller: Caller, client: String?) throws -> Bool {
        try table.remove(
            id: id, queryID: queryID,
            by: (Subscription.principal(of: caller), SubscriptionTable.clientKey(client)))
    }

    /// Whether a write of the class may matter to a subscription of this hub: what a feed only
    /// this host follows needs announced (`ChangeFeedPublisher.interest`).
    public func watches(_ className: String) -> Bool {
        table.watches(className)
    }

        /// Whether a connection may log in with `id` (the REST routes and the socket check the same).
    public func isValidSubscriptionID(_ id: String) -> Bool {
        StandingQueryParsing.isValidID(id, limits: limits)
    }

    // MARK: Connections

    /// Attaches a logged-in connection; false past `connectionsPerID` (or the host's ids).
    public func attach(_ sink: any LiveQuerySink, subscriptionID: String) async -> Bool {
        guard isValidSubscriptionID(subscriptionID) else { return false }
        return table.attach(sink, id: subscriptionID)
    }

    /// Detaches a connection; its id's subscriptions stay for a reconnect.
    public func detach(_ sink: any LiveQuerySink, subscriptionID: String) async {
        table.detach(sink, id: subscriptionID)
    }

    // MARK: Delivery

    /// Delivers the feed's changes until it ends or the task is cancelled. Call it once.
    ///
    /// The feed's changes are moved at once into a queue of at most `changeBacklog` (moving
    /// costs no read, so the feed's own stream stays short); delivery takes them from there.
    /// A change that finds the queue full is not delivered: `lose` ends the connections that
    /// would have had an event of it.
    public func run() async {
        let (queue, intake) = AsyncStream.makeStream(
            of: CommittedChange.self, bufferingPolicy: .bufferingOldest(max(1, limits.changeBacklog)))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in self.changes {
                    if case .dropped(let lost) = intake.yield(change) { self.lose(lost) }
                }
                intake.finish()
            }
            group.addTask {
                for await change in queue { await self.deliver(change) }
            }
        }
    }

    /// A change that will not be delivered: what it changes of who subscribers are still
    /// counts, and every connection of a subscription to its class is told it lost events (it
    /// closes; the client subscribes again) and detached, rather than miss it unawares.
    func lose(_ change: CommittedChange) {
        changesLost.add(1, ordering: .relaxed)
        account(change)
        var told = Set<ObjectIdentifier>()
        for target in table.targets(className: change.className, environment: environmentsShareData ? nil : change.environment) {
            for sink in target.sinks where told.insert(ObjectIdentifier(sink)).inserted {
                table.detach(sink, id: target.subscription.id)
                lostEventConnections.add(1, ordering: .relaxed)
                sink.eventsLost()
            }
        }
    }

    /// What a change alters of who subscribers are, applied whether or not it is delivered.
    private func account(_ change: CommittedChange) {
        // A role changed: every subscriber's roles are walked again (this host's memos know of
        // its own role writes only; another host's arrive here).
        if change.className == "_Role" { table.renewCallers() }
        if change.className == "_User" { endSessions(change) }
    }

    /// Works out and hands over every subscriber's event of one change, in the feed's order.
    func deliver(_ change: CommittedChange) async {
        account(change)
        let targets = table.targets(className: change.className, environment: environmentsShareData ? nil : change.environment)
        guard !targets.isEmpty else { return }
        let events = await events(for: change, targets)
        // One push per connection: each gets the events of the subscriptions it receives.
        var bySink: [ObjectIdentifier: (sink: any LiveQuerySink, id: String, events: [LiveEvent])] = [:]
        for (index, event) in events.enumerated() {
            guard let event else { continue }
            let target = targets[index]
            for sink in target.sinks {
                bySink[ObjectIdentifier(sink), default: (sink, target.subscription.id, [])].events.append(event)
            }
        }
        for batch in bySink.values {
            if batch.sink.push(batch.events) {
                delivered.add(batch.events.count, ordering: .relaxed)
            } else {
                // A slow consumer: the sink closes itself; it gets nothing more.
                dropped.add(batch.events.count, ordering: .relaxed)
                slowConnections.add(1, ordering: .relaxed)
                table.detach(batch.sink, id: batch.id)
            }
        }
    }

    /// Ends the subscriptions whose session a `_User` write ended, before any event of it is
    /// worked out: a deleted user's, and on a change of the user's `sessionToken` (a password
    /// change or reset, `refreshSessionToken`, a dialect's logout) those made with the old one.
    private func endSessions(_ change: CommittedChange) {
        guard let userId = change.object["objectId"]?.stringValue else { return }
        switch change.kind {
        case .delete:
            table.removeSubscriptions(ofUser: userId)
        case .update where change.updatedKeys.contains("sessionToken"):
            // A feed that left the token out ends every session of the user: the safe side.
            table.removeSubscriptions(ofUser: userId, keeping: change.object["sessionToken"]?.stringValue)
        default:
            break
        }
    }

    /// Each target's event (or nil), in the targets' order, a bounded number worked out at once.
    private func events(for change: CommittedChange, _ targets: [SubscriptionTable.Target]) async -> [LiveEvent?] {
        let maker = LiveEventMaker(data: data)
        var results = [LiveEvent?](repeating: nil, count: targets.count)
        await withTaskGroup(of: (Int, LiveEvent?).self) { group in
            var next = 0
            func start() {
                guard next < targets.count else { return }
                let index = next
                next += 1
                group.addTask { [regexTally] in
                    await RegexBudgetTally.$current.withValue(regexTally) { (index, await maker.event(for: change, targets[index].subscription)) }
                }
            }
            for _ in 0..<Self.concurrentViews { start() }
            while let (index, event) = await group.next() {
                results[index] = event
                start()
            }
        }
        return results
    }

    // MARK: Metrics

    /// The hub's counts now.
    public var statistics: LiveQueryStatistics {
        let counts = table.counts
        return LiveQueryStatistics(
            subscriptions: counts.subscriptions, subscriptionIDs: counts.ids, connections: counts.connections,
            eventsDelivered: delivered.load(ordering: .relaxed), eventsDropped: dropped.load(ordering: .relaxed),
            slowConnections: slowConnections.load(ordering: .relaxed), regexEvaluationsCutShort: regexTally.cutShort,
            changesLost: changesLost.load(ordering: .relaxed), lostEventConnections: lostEventConnections.load(ordering: .relaxed))
    }
}

/// What `LiveQueryHub.statistics` reports, for the host's metrics.
public struct LiveQueryStatistics: Sendable, Hashable {
    /// Subscriptions held.
    public var subscriptions: Int
    /// Subscription ids known (with subscriptions or connections).
    public var subscriptionIDs: Int
    /// Connections attached.
    public var connections: Int
    /// Events handed to connections, since the start.
    public var eventsDelivered: Int
    /// Events not delivered because a connection's queue was full, since the start.
    public var eventsDropped: Int
    /// Connections detached for being too slow, since the start.
    public var slowConnections: Int
    /// `$regex` evaluations the per-change budget cut short (counted as no match), since the start.
    public var regexEvaluationsCutShort: Int
    /// Changes not delivered because the host's queue of changes was full, since the start.
    public var changesLost: Int
    /// Connections closed because a change of their subscriptions' classes was lost.
    public var lostEventConnections: Int
}
