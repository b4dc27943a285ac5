import DataAPI
import Foundation
import Synchronization

/// The subscriptions of one host and the connections logged in to them, by subscription id,
/// under one lock: what `LiveQueryHub` reads for each committed write and changes for each
/// subscribe, unsubscribe, login and close. Nothing here waits while holding the lock.
final class SubscriptionTable: Sendable {
    /// What one subscription id holds.
    private struct Client {
        /// Its queries, by query id.
        var subscriptions: [String: Subscription] = [:]
        /// The connections logged in with the id now.
        var sinks: [ObjectIdentifier: Attached] = [:]
        /// Since when no connection is logged in with the id; nil while one is.
        var idleSince: Date?
        /// Whether a connection ever logged in with the id (else it lives `unclaimedLifetime`).
        var claimed = false
    }

    /// A connection logged in with an id, and its client address as limits key it.
    private struct Attached {
        let sink: any LiveQuerySink
        let client: String?
    }

    private struct State {
        var clients: [String: Client] = [:]
        var subscriptionCount = 0
        /// Subscriptions by class, for `watches`.
        var classCounts: [String: Int] = [:]
        var connectionCount = 0
        /// Subscriptions by owner (`Subscription.owners`); an owner with none is absent.
        var ownerCounts: [String: Int] = [:]
        var lastSweep = Date.distantPast
    }

    private let state = Mutex(State())
    let limits: LiveQueryLimits
    let now: @Sendable () -> Date

    init(limits: LiveQueryLimits, now: @escaping @Sendable () -> Date) {
        self.limits = limits
        self.now = now
    }

    /// One subscription and where its events go now.
    struct Target: Sendable {
        let subscription: Subscription
        let sinks: [any LiveQuerySink]
    }

    /// Adds or replaces (same query id: a re-subscribe, perhaps by another user of the device)
    /// a subscription.
    ///
    /// - Throws: 1 past the subscriptions of one id, 429 past those of one of its owners (a
    ///   client address, a user), 511 past the host's; then nothing is stored.
    func add(_ subscription: Subscription) throws(DataAPIError) {
        let moment = now()
        try state.withLock { (state) throws(DataAPIError) in
            sweep(&state, at: moment)
            var client = state.clients[subscription.id] ?? Client(idleSince: moment)
            let replaced = client.subscriptions[subscription.queryID]
            // A device re-subscribes after a reconnect from wherever it is now, perhaps as another
            // user of it; someone else elsewhere who learnt the id may not take its query over.
            if let replaced, replaced.principal != subscription.principal, replaced.client != subscription.client {
                throw DataAPIError(
                    .operationForbidden, "This subscription id's query was subscribed by someone else from another address.")
            }
            if replaced == nil {
                guard client.subscriptions.count < limits.subscriptionsPerID else {
                    throw DataAPIError(
                        .badParameters, "A subscription id holds at most \(limits.subscriptionsPerID) LiveQuery subscriptions.")
                }
            }
            // An owner the replaced subscription counted against keeps its count.
            for owner in subscription.owners where replaced?.owners.contains(owner) != true {
                try checkRoom(of: owner, in: state)
            }
            if let replaced {
                Self.count(replaced.owners, by: -1, in: &state)
            } else {
                guard state.subscriptionCount < limits.subscriptions, state.clients[subscription.id] != nil || state.clients.count < limits.subscriptions else {
                    throw DataAPIError(.temporarilyUnavailable, "This server holds as many LiveQuery subscriptions as it may.")
                }
                state.subscriptionCount += 1
                state.classCounts[subscription.query.className, default: 0] += 1
            }
            Self.count(subscription.owners, by: 1, in: &state)
            client.subscriptions[subscription.queryID] = subscription
            // Subscribing is activity: an id with no connection lives `idleLifetime` from now.
            if client.sinks.isEmpty { client.idleSince = moment }
            state.clients[subscription.id] = client
        }
    }

    /// The prefix of a user's owner key (`Subscription.owners`).
    static let userPrefix = "user:"
    /// The owner key every subscription made with the app key and no user counts against.
    static let appOwner = "app"

    /// Refuses one more subscription of `owner` past its limit: 429 for an address or a user,
    /// 511 for the app key's share of the host.
    private func checkRoom(of owner: String, in state: State) throws(DataAPIError) {
        let count = state.ownerCounts[owner, default: 0]
        if owner == Self.appOwner {
            guard count < limits.subscriptionsWithoutUser else {
                throw DataAPIError(
                    .temporarilyUnavailable,
                    "This server holds as many LiveQuery subscriptions without a signed-in user as it may (\(limits.subscriptionsWithoutUser)).")
            }
            return
        }
        let isUser = owner.hasPrefix(Self.userPrefix)
        let limit = isUser ? limits.subscriptionsPerUser : limits.subscriptionsPerAddress
        guard count < limit else {
            throw DataAPIError(.tooManyRequests, "This \(isUser ? "user" : "address") holds as many LiveQuery subscriptions as it may (\(limit)).")
        }
    }

    /// An address as limits key it (an IPv6 client's /64), as subscriptions and connections
    /// are matched by it.
    static func clientKey(_ address: String?) -> String? {
        address.map(SendLimits.client(ofAddress:))
    }

    /// Removes a subscription; whether it was there. With `by`, only as its replacement may:
    /// its own principal, or anyone from its own client address (the device); someone else
    /// elsewhere who learnt the id (query ids are derived, not secret) may not end it.
    ///
    /// - Throws: 119 for someone else from another address; nothing is removed.
    func remove(id: String, queryID: String, by requester: (principal: String, client: String?)? = nil) throws(DataAPIError) -> Bool {
        try state.withLock { (state) throws(DataAPIError) -> Bool in
            if let requester, let held = state.clients[id]?.subscriptions[queryID],
                held.principal != requester.principal, held.client != requester.client
            {
                throw DataAPIError(
                    .operationForbidden, "This subscription id's query was subscribed by someone else from another address.")
            }
            guard let removed = state.clients[id]?.subscriptions.removeValue(forKey: queryID) else { return false }
            Self.forget([removed], in: &state)
            if let client = state.clients[id], client.subscriptions.isEmpty, client.sinks.isEmpty {
                state.clients[id] = nil
            }
            return true
        }
    }

    /// Attaches a connection; false past the connections of one id, or of ids the host knows.
    func attach(_ sink: any LiveQuerySink, id: String) -> Bool {
        let moment = now()
        let attached = Attached(sink: sink, client: Self.clientKey(sink.client))
        return state.withLock { state in
            sweep(&state, at: moment)
            guard state.clients[id] != nil || state.clients.count < limits.subscriptions else { return false }
            var client = state.clients[id] ?? Client()
            guard client.sinks.count < limits.connectionsPerID || client.sinks[ObjectIdentifier(sink)] != nil else { return false }
            if client.sinks.updateValue(attached, forKey: ObjectIdentifier(sink)) == nil { state.connectionCount += 1 }
            client.idleSince = nil
            client.claimed = true
            state.clients[id] = client
            return true
        }
    }

    /// Detaches a connection; the id's subscriptions stay for `idleLifetime` after its last.
    func detach(_ sink: any LiveQuerySink, id: String) {
        let moment = now()
        state.withLock { state in
            guard var client = state.clients[id], client.sinks.removeValue(forKey: ObjectIdentifier(sink)) != nil else { return }
            state.connectionCount -= 1
            if client.sinks.isEmpty {
                client.idleSince = moment
                if client.subscriptions.isEmpty {
                    state.clients[id] = nil
                    return
                }
            }
            state.clients[id] = client
        }
    }

    /// The subscriptions to a class that have a connection to deliver to now: a connection
    /// logged in with the subscription's id from the address that made it.
    func targets(className: String, environment: EnvironmentName?) -> [Target] {
        let moment = now()
        return state.withLock { state in
            sweep(&state, at: moment)
            var targets: [Target] = []
            for client in state.clients.values where !client.sinks.isEmpty {
                for subscription in client.subscriptions.values
                where subscription.query.className == className
                    && (environment == nil || subscription.caller.environment == environment)
                {
                    let sinks = client.sinks.values.filter { $0.client == subscription.client }.map(\.sink)
                    if !sinks.isEmpty { targets.append(Target(subscription: subscription, sinks: sinks)) }
                }
            }
            return targets
        }
    }

    /// Gives every subscription a fresh copy of its caller, whose roles are walked again at
    /// the next delivery: a role changed (on this host or another).
    func renewCallers() {
        state.withLock { state in
            for (id, var client) in state.clients {
                for (queryID, var subscription) in client.subscriptions {
                    let old = subscription.caller
                    subscription.caller = Caller(isMaster: old.isMaster, environment: old.environment, user: old.user)
                    client.subscriptions[queryID] = subscription
                }
                state.clients[id] = client
            }
        }
    }

    /// Removes the subscriptions acting as a user that was deleted (`keeping` nil), or whose
    /// session ended: those made with any token but the user's current one, `keeping`.
    func removeSubscriptions(ofUser userId: String, keeping current: String? = nil) {
        state.withLock { state in
            for (id, var client) in state.clients {
                let gone = client.subscriptions.values.filter {
                    $0.caller.userId == userId && (current == nil || $0.sessionToken != current)
                }
                guard !gone.isEmpty else { continue }
                for subscription in gone { client.subscriptions[subscription.queryID] = nil }
                Self.forget(gone, in: &state)
                state.clients[id] = client.subscriptions.isEmpty && client.sinks.isEmpty ? nil : client
            }
        }
    }

    /// Whether a write of the class may matter to a subscription here: one watches the class,
    /// or it is a role or a user (which change who subscribers are) and any subscription exists.
    func watches(_ className: String) -> Bool {
        state.withLock { state in
            if state.classCounts[className] != nil { return true }
            return (className == "_Role" || className == "_User") && state.subscriptionCount > 0
        }
    }

    /// Every class `watches` says yes to now (what the change feed records for other hosts).
    var watchedClasses: Set<String> {
        state.withLock { state in
            var classes = Set(state.classCounts.keys)
            if state.subscriptionCount > 0 { classes.formUnion(["_Role", "_User"]) }
            return classes
        }
    }

    /// How many subscriptions, subscription ids and connections the table holds.
    var counts: (subscriptions: Int, ids: Int, connections: Int) {
        state.withLock { ($0.subscriptionCount, $0.clients.count, $0.connectionCount) }
    }

    /// Forgets the ids with no connection for `idleLifetime` (`unclaimedLifetime` for one no
    /// connection ever logged in with), at most every tenth of the shorter.
    private func sweep(_ state: inout State, at moment: Date) {
        let idle = Self.seconds(limits.idleLifetime)
        let unclaimed = min(idle, Self.seconds(limits.unclaimedLifetime))
        guard moment.timeIntervalSince(state.lastSweep) >= min(unclaimed / 10, 60) else { return }
        state.lastSweep = moment
        for (id, client) in state.clients {
            let lifetime = client.claimed ? idle : unclaimed
            guard let idleSince = client.idleSince, moment.timeIntervalSince(idleSince) >= lifetime else { continue }
            Self.forget(Array(client.subscriptions.values), in: &state)
            state.clients[id] = nil
        }
    }

    /// Counts removed subscriptions out.
    private static func forget(_ removed: [Subscription], in state: inout State) {
        state.subscriptionCount -= removed.count
        for subscription in removed {
            count(subscription.owners, by: -1, in: &state)
            let className = subscription.query.className
            let left = (state.classCounts[className] ?? 1) - 1
            state.classCounts[className] = left > 0 ? left : nil
        }
    }

    /// Counts subscriptions in (1) or out (-1) of their owners' counts.
    private static func count(_ owners: [String], by change: Int, in state: inout State) {
        for owner in owners {
            let left = state.ownerCounts[owner, default: 0] + change
            state.ownerCounts[owner] = left > 0 ? left : nil
        }
    }

    /// How many subscriptions count against `owner` (`Subscription.owners`).
    func count(of owner: String) -> Int {
        state.withLock { $0.ownerCounts[owner] ?? 0 }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
