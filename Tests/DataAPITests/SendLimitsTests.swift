import Foundation
import Synchronization
import Testing

@testable import DataAPI

/// `SendLimits` and `SendCounter` on their own: the rate syntax, how addresses are counted, and
/// separate windows for separate clients (the end-to-end suites send from one loopback address).
@Suite struct SendLimitsTests {
    @Test func ratesAreReadAsCountPerUnit() {
        #expect(SendLimits.Rate("10/h") == .init(count: 10, period: 3600))
        #expect(SendLimits.Rate("1000/d") == .init(count: 1000, period: 86_400))
        #expect(SendLimits.Rate(" 5 / m ") == .init(count: 5, period: 60))
        for bad in ["10", "10/w", "0/h", "-1/h", "x/h", ""] { #expect(SendLimits.Rate(bad) == nil, "\(bad)") }
        #expect(SendLimits.Rate("7/s")?.description == "7/1s")
        #expect(SendLimits.Rate("7/d")?.description == "7/d")
    }

    @Test func anIPv6ClientIsCountedByItsNetwork() {
        #expect(SendLimits.client(ofAddress: "203.0.113.7") == "203.0.113.7")
        let one = SendLimits.client(ofAddress: "2001:db8:1:2:aaaa::1")
        #expect(one == "2001:db8:1:2::/64")
        #expect(SendLimits.client(ofAddress: "2001:0db8:0001:0002:ffff:ffff:ffff:ffff") == one)
        #expect(SendLimits.client(ofAddress: "2001:db8:1:3::1") != one)
        #expect(SendLimits.client(ofAddress: "::ffff:198.51.100.2") == "198.51.100.2")
        #expect(SendLimits.client(ofAddress: "not an address") == "not an address")
    }

    @Test func eachClientHasItsOwnWindowAndTheAppOneForAll() async throws {
        let database = try SQLiteTestDatabase()
        let time = Mutex<TimeInterval>(1_800_000_000)
        var limits = SendLimits()
        limits.perClient = .init(count: 2, period: 60)
        limits.perApp = .init(count: 6, period: 3600)
        let counter = SendCounter(data: database.service, limits: limits, now: { Date(timeIntervalSince1970: time.withLock { $0 }) })
        for client in ["198.51.100.1", "198.51.100.2"] {
            _ = try await counter.take(.sms, client: client)
            _ = try await counter.take(.sms, client: client)
            await #expect(throws: DataAPIError.self) { try await counter.take(.sms, client: client) }
        }
        // Email is counted apart.
        _ = try await counter.take(.email, client: "198.51.100.1")
        // A refund makes room again.
        let ticket = try await counter.take(.sms, client: "198.51.100.3")
        await counter.refund(ticket)
        _ = try await counter.take(.sms, client: "198.51.100.3")
        // The sixth SMS of the app; the seventh is refused whoever asks, and the window reopens.
        _ = try await counter.take(.sms, client: "198.51.100.4")
        let full = await #expect(throws: DataAPIError.self) { try await counter.take(.sms, client: "198.51.100.5") }
        #expect(full?.code == .codeRequestedTooOften)
        time.withLock { $0 += 3601 }
        _ = try await counter.take(.sms, client: "198.51.100.5")
        // Rows past every window are cleared as sends go on, whichever client sent them.
        let rows = try await database.storage.count(ObjectQuery(className: SendCounter.className))
        #expect(rows == 2, "\(rows) rows kept")
    }
}
