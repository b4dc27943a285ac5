import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The per-minute history the console's charts read: each call counted in its minute's bucket,
/// an hour kept, older minutes and a long idle dropped, and the number of series bounded.
@Suite struct MetricsHistoryTests {
    static let hello = MetricsHistory.Key(kind: "function", name: "hello", environment: "production")

    @Test func callsAreCountedPerMinuteInTheirLatencyBucket() {
        let clock = TestClock()
        let history = MetricsHistory(now: { clock.now })
        history.record(Self.hello, failed: false, duration: .microseconds(80))
        history.record(Self.hello, failed: true, duration: .milliseconds(30))
        history.record(Self.hello, failed: false, duration: .seconds(60))
        clock.advance(minutes: 1)
        history.record(Self.hello, failed: false, duration: .milliseconds(1))
        let minutes = history.minutes()
        #expect(minutes.count == 2)
        let first = try! #require(minutes.first?.series[Self.hello])
        #expect(first.calls == 3 && first.errors == 1)
        // 80 µs in the first bucket (≤ 100 µs), 30 ms in ≤ 50 ms, a minute past every bound.
        var expected = [Int](repeating: 0, count: HostMetrics.buckets.count + 1)
        expected[0] = 1
        expected[MetricsHistory.bounds.firstIndex(of: 0.05)!] = 1
        expected[HostMetrics.buckets.count] = 1
        #expect(first.buckets == expected)
        #expect(minutes[1].series[Self.hello]?.calls == 1 && minutes[1].start - minutes[0].start == 60)
    }

    @Test func anHourIsKeptAndALongIdleShowsNothing() {
        let clock = TestClock()
        let history = MetricsHistory(now: { clock.now })
        for _ in 0..<70 {
            history.record(Self.hello, failed: false, duration: .milliseconds(1))
            clock.advance(minutes: 1)
        }
        #expect(history.minutes().count == MetricsHistory.minutes - 1, "the current minute counted nothing yet")
        clock.advance(minutes: 60)
        #expect(history.minutes().isEmpty)
        history.record(Self.hello, failed: false, duration: .milliseconds(1))
        #expect(history.minutes().count == 1)
    }

    @Test func oneMinuteHoldsABoundedNumberOfSeries() {
        let history = MetricsHistory(now: { Date(timeIntervalSince1970: 1_800_000_000) })
        for index in 0...MetricsHistory.maxSeries {
            history.record(.init(kind: "route", name: "GET /r\(index)", environment: "production"), failed: false, duration: .milliseconds(1))
        }
        history.record(Self.hello, failed: false, duration: .milliseconds(1))
        let series = history.minutes().first?.series ?? [:]
        #expect(series.count == MetricsHistory.maxSeries && series[Self.hello] == nil)
        // A series already counted keeps counting.
        history.record(.init(kind: "route", name: "GET /r0", environment: "production"), failed: false, duration: .milliseconds(1))
        #expect(history.minutes().first?.series[.init(kind: "route", name: "GET /r0", environment: "production")]?.calls == 2)
    }

    @Test func theConsoleReadsTheHistoryOfItsHost() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            _ = try await api.find("Todo")
            let history = try await browser.send(.get, "/console/api/metrics/history")
            #expect(history.status == .ok && history["bounds"]?.arrayValue?.count == HostMetrics.buckets.count, "\(history)")
            let series = history["minutes"]?.arrayValue?.flatMap { $0["series"]?.arrayValue ?? [] } ?? []
            let found = series.first { $0["kind"] == "route" && $0["name"] == "GET /1.1/classes/{className}" }
            #expect(found?["calls"] == 1 && found?["errors"] == 0 && found?["environment"] == "production", "\(series)")
            #expect(found?["buckets"]?.arrayValue?.count == HostMetrics.buckets.count + 1)
        }
    }
}
