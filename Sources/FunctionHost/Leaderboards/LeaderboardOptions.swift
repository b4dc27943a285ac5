public import Foundation

/// How this host keeps leaderboards (`HostConfiguration.leaderboards`).
public struct LeaderboardOptions: Sendable {
    /// Whether only the master key writes statistics (`--leaderboard-master-key-only`; off):
    /// LeanCloud's dashboard switch "only the master key may update scores", which its guide
    /// advises against cheating. Off, a signed-in user writes his own.
    public var masterKeyOnlyStatistics = false
    /// The zone whose midnight ends daily, weekly and monthly versions
    /// (`--leaderboard-timezone`; UTC, as LeanCloud's international regions; its Chinese ones
    /// used Asia/Shanghai).
    public var timeZone = TimeZone(identifier: "UTC")!

    /// The defaults.
    public init() {}
}
