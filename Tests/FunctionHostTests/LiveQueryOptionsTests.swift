import ArgumentParser
import FunctionHost
import LiveQuery
import Testing

@testable import functionhost

/// The LiveQuery and realtime limits as `serve` reads them: each option reaches the host's
/// configuration, the defaults stay as they were, and a value out of range is refused before
/// the server starts.
@Suite struct LiveQueryOptionsTests {
    private static func configuration(_ arguments: [String]) throws -> HostConfiguration {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try LiveQueryOptions.parse(arguments).apply(to: &configuration)
        return configuration
    }

    @Test func eachOptionReachesTheConfiguration() throws {
        let configuration = try Self.configuration([
            "--livequery-subscriptions", "500", "--livequery-subscriptions-per-address", "50",
            "--livequery-subscriptions-per-user", "40", "--livequery-subscriptions-per-id", "8",
            "--livequery-connections-per-id", "2", "--livequery-idle-lifetime", "90",
            "--realtime-queue-events", "100", "--realtime-queue-bytes", "65536",
            "--realtime-address-queue-bytes", "262144", "--realtime-message-bytes", "8192",
            "--realtime-logins-per-connection", "3",
        ])
        let liveQuery = configuration.liveQueryLimits
        #expect(liveQuery.subscriptions == 500 && liveQuery.subscriptionsPerAddress == 50)
        #expect(liveQuery.subscriptionsPerUser == 40 && liveQuery.subscriptionsPerID == 8)
        #expect(liveQuery.connectionsPerID == 2 && liveQuery.idleLifetime == .seconds(90))
        let realtime = configuration.realtimeLimits
        #expect(realtime.maxQueuedEvents == 100 && realtime.maxQueuedBytes == 65536)
        #expect(realtime.maxQueuedBytesPerAddress == 262_144 && realtime.maxMessageSize == 8192)
        #expect(realtime.maxLoginsPerConnection == 3)
    }

    @Test func withoutOptionsTheDefaultsStand() throws {
        let configuration = try Self.configuration([])
        #expect(configuration.liveQueryLimits == LiveQueryLimits())
        #expect(configuration.realtimeLimits == RealtimeLimits())
        #expect(RealtimeLimits().maxQueuedBytesPerAddress == 16 << 20)
    }

    @Test func aValueOutOfRangeIsRefused() {
        for arguments in [
            ["--livequery-subscriptions", "0"], ["--realtime-address-queue-bytes", "-1"], ["--livequery-idle-lifetime", "0"],
            ["--livequery-idle-lifetime", "nan"], ["--realtime-queue-events", "many"],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { try Self.configuration(arguments) }
        }
    }

    @Test func theRealtimeOriginsAreReadAsTheWebOriginsAre() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try EdgeOptions.parse(["--realtime-origins", "https://app.example.com"]).apply(to: &configuration, environment: [:])
        #expect(configuration.realtimeOrigins == WebOrigins(list: "https://app.example.com") && configuration.webOrigins == .any)
        configuration.realtimeOrigins = nil
        try EdgeOptions.parse([]).apply(to: &configuration, environment: ["FUNCTIONHOST_REALTIME_ORIGINS": "https://*.example.org"])
        #expect(configuration.realtimeOrigins?.allows("https://a.example.org") == true)
        #expect(throws: (any Error).self) {
            try EdgeOptions.parse(["--realtime-origins", "app.example.com"]).apply(to: &configuration, environment: [:])
        }
    }
}
