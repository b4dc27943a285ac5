import Synchronization

/// Token buckets by key (a client's address, a function's name): each key may spend `rate`
/// tokens a second on average and `burst` at once. A request that finds its bucket empty is
/// told how long until the next token.
///
/// Per process: behind a load balancer each host limits on its own, so N hosts admit N times
/// the rate; a shared counter would cost every request a database round trip.
final class TokenBuckets: Sendable {
    /// Tokens a second.
    let rate: Double
    /// The most tokens a bucket holds.
    let burst: Double

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    /// Past this many keys, buckets that have refilled (whose clients went quiet) are dropped, so
    /// a scan from many addresses can't grow the table without end.
    private let pruneAbove: Int

    init(rate: Double, burst: Double, pruneAbove: Int = 10_000) {
        self.rate = rate
        self.burst = max(1, burst)
        self.pruneAbove = pruneAbove
    }

    /// Takes `count` tokens for `key` when its bucket holds at least `needed`: nil when taken,
    /// else how long until it holds `needed`. Taking more than it holds leaves it owing the rest
    /// (negative), which its next requests wait for.
    func take(_ key: String, count: Int = 1, needing needed: Double = 1, now: ContinuousClock.Instant = .now) -> Duration? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = bucket.updated.duration(to: now)
            bucket.tokens = min(burst, bucket.tokens + rate * Double(elapsed.components.seconds) + rate * Double(elapsed.components.attoseconds) / 1e18)
            bucket.updated = now
            defer {
                buckets[key] = bucket
                if buckets.count > pruneAbove { prune(&buckets, now: now) }
            }
            if bucket.tokens >= needed {
                bucket.tokens -= Double(count)
                return nil
            }
            return .milliseconds(Int64(((needed - bucket.tokens) / rate * 1000).rounded(.up)))
        }
    }

    private func prune(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { _, bucket in
            // Kept until full again: a bucket owing tokens (a large batch) takes longer.
            let full = (burst - bucket.tokens) / rate
            let idle = bucket.updated.duration(to: now)
            return Double(idle.components.seconds) < full
        }
    }
}
