import DataAPI
import Foundation
import JSON
import Leaderboards
import TestSupport
import Testing

/// Versions ending on schedule (day, week, month; UTC) and by reset, on the fixture's clock.
@Suite struct LeaderboardScheduleTests {
    static func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

    @Test func eachIntervalEndsAtItsNextMidnight() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            // The clock starts on Friday 2027-01-15 at 08:00 UTC.
            #expect(try await boards.make("d", interval: "day").expiredAt == Self.date("2027-01-16T00:00:00Z"))
            #expect(try await boards.make("w", interval: "week").expiredAt == Self.date("2027-01-18T00:00:00Z"), "next Monday")
            #expect(try await boards.make("m", interval: "month").expiredAt == Self.date("2027-02-01T00:00:00Z"))
            #expect(try await boards.make("n", interval: "never").expiredAt == nil)
            let shanghai = ResetCalendar(timeZone: TimeZone(identifier: "Asia/Shanghai")!)
            #expect(shanghai.nextReset(after: fixture.now, interval: .day) == Self.date("2027-01-15T16:00:00Z"))
        }
    }

    @Test func aDueVersionEndsAtTheFirstCallAndIsArchived() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("daily", interval: "day")
            try await boards.put("daily", "a", 5)
            fixture.set(Self.date("2027-01-16T00:00:01Z"))
            let board = try await boards.board("daily", caller: LeaderboardFixture.client)
            #expect(board.version == 1)
            #expect(board.activatedAt == Self.date("2027-01-16T00:00:00Z"))
            #expect(board.expiredAt == Self.date("2027-01-17T00:00:00Z"))
            #expect(try await boards.all("daily").isEmpty, "the new version starts empty")
            #expect(try await boards.all("daily", version: 0).map(\.1) == [5], "the last version is still read")
            let archives = try await boards.archives("daily", skip: 0, limit: 10, caller: LeaderboardFixture.master)
            #expect(archives.map { $0["version"] } == [0])
            #expect(archives.first?["status"] == "completed")
            #expect(archives.first?["deactivatedAt"]?["iso"] == "2027-01-16T00:00:01.000Z")
            #expect(try await boards.put("daily", "a", 3) == 3, "written to the new version")
            // Two days on: one more version (the days with no call started none), and version 0 is gone.
            fixture.set(Self.date("2027-01-18T12:00:00Z"))
            #expect(try await boards.board("daily", caller: LeaderboardFixture.client).version == 2)
            #expect(try await boards.all("daily", version: 1).map(\.1) == [3])
            await #expect(throws: LeaderboardError.self) { try await boards.all("daily", version: 0) }
            let stats = try await boards.statistics(.entity, id: "a", names: nil, caller: LeaderboardFixture.client)
            #expect(stats.isEmpty, "no statistic in the current version")
        }
    }

    @Test func resetStartsANewVersionNow() async throws {
        try await LeaderboardFixture.run { fixture in
            let hosts = [try await fixture.leaderboards(), try await fixture.leaderboards()]
            try await hosts[0].make("season", interval: "never")
            try await hosts[0].put("season", "a", 1)
            let reset = try await hosts[1].reset("season", caller: LeaderboardFixture.master)
            #expect(reset.version == 1)
            #expect(reset.activatedAt == fixture.now)
            #expect(reset.expiredAt == nil)
            #expect(try await hosts[0].board("season", caller: LeaderboardFixture.client).version == 1)
            #expect(try await hosts[0].all("season").isEmpty)
            // A changed interval ends the version at the new interval's next boundary.
            let weekly = try await hosts[0].update("season", ["versionChangeInterval": "week"], caller: LeaderboardFixture.master)
            #expect(weekly.expiredAt == Self.date("2027-01-18T00:00:00Z"))
            #expect(weekly.version == 1)
        }
    }
}
