import ArgumentParser
import Foundation
import FunctionHost

/// The options of `serve` about how much one request or connection may hold: a database
/// statement's time, and client connections' timeouts, body rate and number per client.
struct LimitOptions: ParsableArguments {
    @Option(
        name: .customLong("statement-timeout"),
        help: ArgumentHelp(
            "Seconds one database read or write may run; past it, 503 with code 124 (default: 5).", valueName: "seconds"))
    var statementTimeout: Double?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Seconds a client connection may stay idle before it is closed (default: 60).", valueName: "seconds"))
    var idleTimeout: Double?

    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp(
            "Seconds each request may take to end its headers once begun (default: 10).", valueName: "seconds"))
    var headerTimeout: Double?

    @Option(
        name: .customLong("body-window"),
        help: ArgumentHelp(
            "Seconds of the body rate's window: each must bring --body-window-bytes of a request's body or its end; else 408 (default: 10).",
            valueName: "seconds"))
    var bodyWindow: Double?

    @Option(
        name: .customLong("body-window-bytes"),
        help: ArgumentHelp("The fewest body bytes each --body-window must bring (default: 65536).", valueName: "bytes"))
    var bodyWindowBytes: Int?

    @Option(
        name: .customLong("connections-per-address"),
        help: ArgumentHelp(
            "Connections one client address may hold open; trusted proxies are not counted (default: 64).",
            valueName: "count"))
    var connectionsPerAddress: Int?

    /// Refuses a value out of range before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration)
    }

    /// Applies the options to a configuration.
    func apply(to configuration: inout HostConfiguration) throws {
        if let seconds = statementTimeout {
            configuration.statementBudget.time = try Self.duration(seconds, option: "--statement-timeout")
        }
        if let seconds = idleTimeout {
            configuration.connectionLimits.idleTimeout = try Self.duration(seconds, option: "--idle-timeout")
        }
        if let seconds = headerTimeout {
            configuration.connectionLimits.headerTimeout = try Self.duration(seconds, option: "--header-timeout")
        }
        if let seconds = bodyWindow {
            configuration.connectionLimits.bodyWindow = try Self.duration(seconds, option: "--body-window")
        }
        if let bytes = bodyWindowBytes {
            guard bytes >= 0 else { throw ValidationError("--body-window-bytes must be at least 0.") }
            configuration.connectionLimits.bodyBytesPerWindow = bytes
        }
        if let count = connectionsPerAddress {
            guard count > 0 else { throw ValidationError("--connections-per-address must be at least 1.") }
            configuration.connectionLimits.perAddress = count
        }
    }

    private static func duration(_ seconds: Double, option: String) throws -> Duration {
        guard seconds.isFinite, seconds >= 0.001, seconds <= 86_400 else {
            throw ValidationError("\(option) takes seconds from 0.001 to 86400.")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
