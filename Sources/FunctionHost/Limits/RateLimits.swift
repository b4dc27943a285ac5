import Foundation
/// The request rates a host admits: per client address, over every request, and per cloud
/// function, over all its callers. Nil parts are unlimited.
public struct RateLimits: Sendable {
    /// Requests a second one client address may send (and as many at once), or nil.
    public var perClient: Double?
    /// Calls a second each named function may take, by name; `*` applies to functions not named.
    public var perFunction: [String: Double]

    /// No limits.
    public init(perClient: Double? = nil, perFunction: [String: Double] = [:]) {
        self.perClient = perClient
        self.perFunction = perFunction
    }

    /// Reads `name=rate` pairs, comma-separated (`checkout=5,*=50`): the `--function-rate-limit` form.
    public static func functionRates(_ text: String) -> [String: Double]? {
        var rates: [String: Double] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let rate = Double(parts[1]), rate > 0 else { return nil }
            rates[parts[0]] = rate
        }
        return rates
    }
}
