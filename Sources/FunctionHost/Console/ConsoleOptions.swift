
/// Where the web console is served, and how long its sessions last (`--console off|main|admin`).
public struct ConsoleOptions: Sendable {
    /// Where `/console` is served.
    public enum Placement: String, Sendable, CaseIterable {
        /// Nowhere: `/console` is an unknown path.
        case off
        /// On the main port, beside the API (the default: the master key already works there).
        case main
        /// Only on the admin port (`--admin-port`), the operator's own network.
        case admin
    }

    /// Where it is served.
    public var placement = Placement.main
    /// How long a session lives at most, however busy (12 hours), in seconds.
    public var lifetime: Double = 12 * 3600
    /// How long a session lives without a request (1 hour), in seconds.
    public var idleLifetime: Double = 3600
    /// Login attempts one client address may make at once, then `loginsPerMinute` more a minute:
    /// the master key can't be guessed, but every guess costs a comparison and a log line.
    public var loginBurst = 10
    /// Login attempts a minute one client address regains.
    public var loginsPerMinute = 5.0

    /// The defaults.
    public init() {}
}
