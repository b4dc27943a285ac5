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
        var sinks: [ObjectIdentifier: any LiveQuerySink] = [:]
        /// Since when no connection is logged in with the id; nil while one is.
        var idleSince: Date?
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
            if replaced == nil {
                guard client.subscriptions.count < limits.subscriptionsPerID else {
                    throw DataAPIError(
                        .badParameters, "A subscription id holds at most \(limits.subscriptionsPerID) LiveQuery subscriptions.")
                }
            }
            // An owner the replaced subscription counted against keeps its count.
            for owner in subscription.owners where replaced?.owners.contains(owner) != true {
                let limit = owner.hasPrefix(Self.userPrefix) ? limits.subscriptionsPerUser : limits.subscriptionsPerAddress
                guard state.ownerCounts[owner, default: 0] < limit else {
                    let who = owner.hasPrefix(Self.userPrefix) ? "user" : "address"
                    throw DataAPIError(.tooManyRequests, "This \(who) holds as many LiveQuery subscriptions as it may (\(limit)).")
                }
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

    /// Removes a subscription; whether it was there.
    func remove(id: String, queryID: String) -> Bool {
        state.withLock { state in
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
        return state.withLock { state in
            sweep(&state, at: moment)
            guard state.clients[id] != nil || state.clients.count < limits.subscriptions else { return false }
            var client = state.clients[id] ?? Client()
            guard client.sinks.count < limits.connectionsPerID || client.sinks[ObjectIdentifier(sink)] != nil else { return false }
            if client.sinks.updateValue(sink, forKey: ObjectIdentifier(sink)) == nil { state.connectionCount += 1 }
            client.idleSince = nil
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

    /// The subscriptions to a class that have a connection to deliver to now.
    func targets(className: String, environment: EnvironmentName?) -> [Target] {
        let moment = now()
        return state.withLock { state in
            sweep(&state, at: moment)
            var targets: [Target] = []
            for client in state.clients.values where !client.sinks.isEmpty {
                let sinks = Array(client.sinks.values)
                for subscription in client.subscriptions.values
                where subscription.query.className == className
                    && (environment == nil || subscription.caller.environment == environment)
                {
                    targets.append(Target(subscription: subscription, sinks: sinks))
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

    /// Removes the subscriptions acting as a user that was deleted.
    func removeSubscriptions(ofUser userId: String) {
        state.withLock { state in
            for (id, var client) in state.clients {
                let gone = client.subscriptions.values.filter { $0.caller.userId == userId }
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

    /// Forgets the ids with no connection for `idleLifetime`, at most every tenth of it.
    private func sweep(_ state: inout State, at moment: Date) {
        let lifetime = Self.seconds(limits.idleLifetime)
        guard moment.timeIntervalSince(state.lastSweep) >= min(lifetime / 10, 60) else { return }
        state.lastSweep = moment
        for (id, client) in state.clients {
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
