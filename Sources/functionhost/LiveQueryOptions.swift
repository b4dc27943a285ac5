import ArgumentParser
import FunctionHost
import LiveQuery

/// The options of `serve` about how much LiveQuery holds: the subscriptions the host keeps and
/// their shares per client, user and subscription id, and what each realtime connection and
/// each client's connections together may queue. Every one has a default (`LiveQueryLimits`,
/// `RealtimeLimits`).
struct LiveQueryOptions: ParsableArguments {
    @Option(
        name: .customLong("livequery-subscriptions"),
        help: ArgumentHelp("Subscriptions the host holds in all; one more is refused (default: 100000).", valueName: "count"))
    var subscriptions: Int?

    @Option(
        name: .customLong("livequery-subscriptions-per-address"),
        help: ArgumentHelp(
            "Subscriptions one client address (an IPv6 /64) holds across its subscription ids (default: 1000).", valueName: "count"))
    var subscriptionsPerAddress: Int?

    @Option(
        name: .customLong("livequery-subscriptions-per-user"),
        help: ArgumentHelp(
            "Subscriptions acting as one signed-in user, across ids and addresses; the master key's are not bound (default: 1000).",
            valueName: "count"))
    var subscriptionsPerUser: Int?

    @Option(
        name: .customLong("livequery-subscriptions-per-id"),
        help: ArgumentHelp("Subscriptions one subscription id may hold (default: 64).", valueName: "count"))
    var subscriptionsPerID: Int?

    @Option(
        name: .customLong("livequery-connections-per-id"),
        help: ArgumentHelp("Realtime connections logged in with one subscription id at once (default: 4).", valueName: "count"))
    var connectionsPerID: Int?

    @Option(
        name: .customLong("livequery-idle-lifetime"),
        help: ArgumentHelp(
            "Seconds a subscription id's subscriptions outlive its last realtime connection (default: 3600).", valueName: "seconds"))
    var idleLifetime: Double?

    @Option(
        name: .customLong("realtime-queue-events"),
        help: ArgumentHelp(
            "Events one realtime connection may have queued unread; past it the connection is closed with 4120 (default: 1000).",
            valueName: "count"))
    var queueEvents: Int?

    @Option(
        name: .customLong("realtime-queue-bytes"),
        help: ArgumentHelp(
            "Bytes of events one realtime connection may have queued unread; past it the connection is closed with 4120 (default: 4194304).",
            valueName: "bytes"))
    var queueBytes: Int?

    @Option(
        name: .customLong("realtime-address-queue-bytes"),
        help: ArgumentHelp(
            "Bytes of events all the realtime connections of one client address (an IPv6 /64) may have queued together; the connection that would pass it is closed with 4120 (default: 16777216).",
            valueName: "bytes"))
    var addressQueueBytes: Int?

    @Option(
        name: .customLong("realtime-message-bytes"),
        help: ArgumentHelp(
            "The largest message a realtime client may send; past it the connection is closed with 1009 (default: 16384).",
            valueName: "bytes"))
    var messageBytes: Int?

    @Option(
        name: .customLong("realtime-logins-per-connection"),
        help: ArgumentHelp("Subscription ids one realtime connection may log in with (default: 4).", valueName: "count"))
    var loginsPerConnection: Int?

    /// Refuses a value out of range before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration)
    }

    /// Applies the options to a configuration.
    func apply(to configuration: inout HostConfiguration) throws {
        let counts: [(Int?, String, WritableKeyPath<HostConfiguration, Int>)] = [
            (subscriptions, "--livequery-subscriptions", \.liveQueryLimits.subscriptions),
            (subscriptionsPerAddress, "--livequery-subscriptions-per-address", \.liveQueryLimits.subscriptionsPerAddress),
            (subscriptionsPerUser, "--livequery-subscriptions-per-user", \.liveQueryLimits.subscriptionsPerUser),
            (subscriptionsPerID, "--livequery-subscriptions-per-id", \.liveQueryLimits.subscriptionsPerID),
            (connectionsPerID, "--livequery-connections-per-id", \.liveQueryLimits.connectionsPerID),
            (queueEvents, "--realtime-queue-events", \.realtimeLimits.maxQueuedEvents),
            (queueBytes, "--realtime-queue-bytes", \.realtimeLimits.maxQueuedBytes),
            (addressQueueBytes, "--realtime-address-queue-bytes", \.realtimeLimits.maxQueuedBytesPerAddress),
            (messageBytes, "--realtime-message-bytes", \.realtimeLimits.maxMessageSize),
            (loginsPerConnection, "--realtime-logins-per-connection", \.realtimeLimits.maxLoginsPerConnection),
        ]
        for case (let value?, let option, let path) in counts {
            // A zero would refuse everything: a bound, not a switch.
            guard value >= 1 else { throw ValidationError("\(option) must be at least 1.") }
            configuration[keyPath: path] = value
        }
        if let seconds = idleLifetime {
            guard seconds.isFinite, seconds >= 1, seconds <= 7 * 86_400 else {
                throw ValidationError("--livequery-idle-lifetime takes seconds from 1 to 604800.")
            }
            configuration.liveQueryLimits.idleLifetime = .milliseconds(Int64((seconds * 1000).rounded()))
        }
    }
}
