/// A token bucket: `rate` tokens a second up to `burst`; each call takes one. A connection's
/// commands and its ping frames each have one.
struct RealtimeRate: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var refilled = ContinuousClock.now

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Takes one token; false when the bucket is empty (nothing is taken then).
    mutating func take() -> Bool {
        let now = ContinuousClock.now
        let elapsed = now - refilled
        refilled = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
