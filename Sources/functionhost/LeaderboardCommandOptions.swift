import ArgumentParser
import Foundation
import FunctionHost

/// The options of `serve` about leaderboards: whether only the master key writes statistics,
/// and the zone whose midnight ends daily, weekly and monthly versions.
struct LeaderboardCommandOptions: ParsableArguments {
    @Flag(
        name: .customLong("leaderboard-master-key-only"),
        help: "Only the master key writes leaderboard statistics (LeanCloud's switch against cheating); by default a signed-in user writes his own.")
    var masterKeyOnly = false

    @Option(
        name: .customLong("leaderboard-timezone"),
        help: ArgumentHelp(
            "The zone whose midnight ends daily, weekly (Monday) and monthly leaderboard versions, e.g. Asia/Shanghai for LeanCloud CN's (default: UTC).",
            valueName: "zone"))
    var timeZone: String?

    /// Refuses an unknown zone before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration)
    }

    /// Applies the options to a configuration.
    func apply(to configuration: inout HostConfiguration) throws {
        configuration.leaderboards.masterKeyOnlyStatistics = masterKeyOnly
        if let timeZone {
            guard let zone = TimeZone(identifier: timeZone) else {
                throw ValidationError("--leaderboard-timezone: no time zone named '\(timeZone)'.")
            }
            configuration.leaderboards.timeZone = zone
        }
    }
}
