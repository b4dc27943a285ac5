import Foundation
import JSON
import Synchronization

/// Each function's and route's calls, errors and latency per minute, the last hour, for the
/// console's charts (`GET /console/api/metrics/history`): Prometheus's histograms count since the
/// host started, and a chart over time needs what each minute added. Kept in this process's
/// memory, as the histograms are; each host keeps its own.
final class MetricsHistory: Sendable {
    /// What one series is: a function (`function`, its name) or a route (`route`, method and
    /// pattern), in an environment. Route patterns and function names are few: ids never enter.
    struct Key: Hashable, Sendable {
        var kind: String
        /// A route's method, apart from its pattern so that a request builds no string to count
        /// itself (the two are joined only when the history is read); empty for a function.
        var method = ""
        var name: String
        var environment: String

        /// What the console shows: `GET /1.1/classes/{className}`, or the function's name.
        var label: String { method.isEmpty ? name : "\(method) \(name)" }
    }

    /// What a series counted in one minute; `buckets[i]` the calls that took at most
    /// `HostMetrics.buckets[i]` and more than the bucket before (the last: longer than all).
    struct Counts: Sendable, Equatable {
        var calls = 0
        var errors = 0
        var buckets = [Int](repeating: 0, count: HostMetrics.buckets.count + 1)

        /// Counts one call.
        mutating func count(failed: Bool, bucket: Int) {
            calls += 1
            if failed { errors += 1 }
            buckets[bucket] += 1
        }
    }

    /// How many minutes are kept.
    static let minutes = 60
    /// How many series one minute holds at most: past it a minute counts no new series, so a host
    /// with very many routes or functions holds bounded memory (60 × 2 000 series of 18 counts).
    static let maxSeries = 2000

    private struct Minute {
        var start: Int
        var series: [Key: Counts] = [:]
    }

    private let state = Mutex<[Minute]>([])
    private let now: @Sendable () -> Date
    /// The bucket bounds in seconds, as the histograms have them.
    static let bounds: [Double] = HostMetrics.buckets.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }

    /// An empty history on `now`'s clock.
    init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Counts one call of a series in the current minute.
    func record(_ key: Key, failed: Bool, duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let bucket = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
        let minute = Int(now().timeIntervalSince1970 / 60)
        state.withLock { minutes in
            // A clock set back counts into the newest minute: the minutes stay in order.
            if (minutes.last?.start ?? .min) < minute {
                minutes.append(Minute(start: minute))
                // Minutes older than the hour are dropped, however long the host was idle.
                minutes.removeAll { $0.start <= minute - Self.minutes }
            }
            let last = minutes.count - 1
            guard minutes[last].series[key] != nil || minutes[last].series.count < Self.maxSeries else { return }
            // One lookup of the key (a request's path counts every request).
            minutes[last].series[key, default: Counts()].count(failed: failed, bucket: bucket)
        }
    }

    /// The minutes of the last hour that counted anything, oldest first: each minute's start
    /// (seconds since 1970) and its series with their counts.
    func minutes() -> [(start: Int, series: [Key: Counts])] {
        let current = Int(now().timeIntervalSince1970 / 60)
        return state.withLock { $0 }.filter { $0.start > current - Self.minutes }.map { ($0.start * 60, $0.series) }
    }

    /// The history as the console reads it: `{"bounds": [seconds], "minutes": [{"start": seconds
    /// since 1970, "series": [{"kind", "name", "environment", "calls", "errors", "buckets"}]}]}`.
    var json: JSONValue {
        let minutes = minutes().map { minute -> JSONValue in
            let series = minute.series.sorted { ($0.key.kind, $0.key.label, $0.key.environment) < ($1.key.kind, $1.key.label, $1.key.environment) }
                .map { key, counts -> JSONValue in
                    [
                        "kind": .string(key.kind), "name": .string(key.label), "environment": .string(key.environment),
                        "calls": .int(Int64(counts.calls)), "errors": .int(Int64(counts.errors)),
                        "buckets": .array(counts.buckets.map { .int(Int64($0)) }),
                    ]
                }
            return ["start": .int(Int64(minute.start)), "series": .array(series)]
        }
        return ["bounds": .array(Self.bounds.map(JSONValue.double)), "minutes": .array(minutes)]
    }
}
