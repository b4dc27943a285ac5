import Testing

@testable import DataAPI

@Suite("ISO dates")
struct ISODateTests {
    @Test(
        "Known instants format canonically",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1_510_384_755_549, "2017-11-11T07:19:15.549Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        ])
    func format(milliseconds: Int64, text: String) {
        #expect(ISODate.string(fromMilliseconds: milliseconds) == text)
        #expect(ISODate.milliseconds(from: text) == milliseconds)
    }

    @Test(
        "format then parse is the identity",
        arguments: [
            Int64(0), 1, 999, 1000, 86_399_999, 86_400_000, 1_510_384_755_549, 1_700_000_000_123, -1, -86_400_001,
            4_102_444_800_000, 951_868_799_999,
        ])
    func roundTrip(milliseconds: Int64) {
        let text = ISODate.string(fromMilliseconds: milliseconds)
        #expect(text.count == 24)
        #expect(ISODate.milliseconds(from: text) == milliseconds)
    }

    @Test("Every day of a leap year and a common year round-trips")
    func everyDay() {
        let start2000: Int64 = 946_684_800_000
        for day in Int64(0)..<(366 + 365) {
            let ms = start2000 + day * 86_400_000 + 12 * 3_600_000
            let text = ISODate.string(fromMilliseconds: ms)
            #expect(ISODate.milliseconds(from: text) == ms, "\(text)")
        }
        #expect(ISODate.string(fromMilliseconds: start2000 + 59 * 86_400_000).hasPrefix("2000-02-29"))
        #expect(ISODate.string(fromMilliseconds: start2000 + 60 * 86_400_000).hasPrefix("2000-03-01"))
    }

    @Test(
        "Offsets are converted to UTC",
        arguments: [
            ("2017-11-11T15:19:15.549+08:00", "2017-11-11T07:19:15.549Z"),
            ("2017-11-11T15:19:15.549+0800", "2017-11-11T07:19:15.549Z"),
            ("2017-11-11T02:19:15.549-05:00", "2017-11-11T07:19:15.549Z"),
            ("2017-11-11T07:19:15.549+00:00", "2017-11-11T07:19:15.549Z"),
            ("2017-11-11T07:19:15.549z", "2017-11-11T07:19:15.549Z"),
            ("2018-01-01T05:30:00+05:30", "2018-01-01T00:00:00.000Z"),
            ("2017-12-31T20:00:00-05:00", "2018-01-01T01:00:00.000Z"),
            ("2018-01-01T01:00:00+02:00", "2017-12-31T23:00:00.000Z"),
        ])
    func offsets(text: String, canonical: String) {
        #expect(ISODate.normalized(text) == canonical)
    }

    @Test(
        "Fractions are optional and padded or truncated to milliseconds",
        arguments: [
            ("2017-11-11T07:19:15Z", "2017-11-11T07:19:15.000Z"),
            ("2017-11-11T07:19:15.5Z", "2017-11-11T07:19:15.500Z"),
            ("2017-11-11T07:19:15.05Z", "2017-11-11T07:19:15.050Z"),
            ("2017-11-11T07:19:15.123456Z", "2017-11-11T07:19:15.123Z"),
            ("2017-11-11T07:19Z", "2017-11-11T07:19:00.000Z"),
            ("2017-11-11 07:19:15Z", "2017-11-11T07:19:15.000Z"),
            ("2017-11-11", "2017-11-11T00:00:00.000Z"),
        ])
    func fractions(text: String, canonical: String) {
        #expect(ISODate.normalized(text) == canonical)
    }

    @Test(
        "Text that is not a date gives nil",
        arguments: [
            "", "now", "2017", "2017-11", "2017/11/11", "17-11-11", "2017-13-01", "2017-00-10", "2017-11-00",
            "2017-11-32", "2017-11-11T", "2017-11-11T07", "2017-11-11T24:00:00Z", "2017-11-11T07:60:00Z",
            "2017-11-11T07:19:61Z", "2017-11-11T07:19:15", "2017-11-11T07:19:15.Z", "2017-11-11T07:19:15.549",
            "2017-11-11T07:19:15.549Zjunk", "2017-11-11T07:19:15+8", "2017-11-11T07:19:15+08:", "2017-11-11x",
            " 2017-11-11", "2017-11-11T07:19:15.549 Z", "２０１７-11-11",
        ])
    func invalid(text: String) {
        #expect(ISODate.milliseconds(from: text) == nil)
        #expect(ISODate.normalized(text) == nil)
    }

    @Test("normalized() is idempotent and yields canonical text")
    func normalizedIdempotent() throws {
        let inputs = ["2017-11-11T15:19:15+08:00", "2000-01-01", "1999-12-31T23:59:59.9999Z"]
        for input in inputs {
            let once = try #require(ISODate.normalized(input))
            #expect(ISODate.normalized(once) == once)
            #expect(once.hasSuffix("Z"))
            #expect(once.count == 24)
        }
    }

    @Test("Canonical text sorts like the instants it names")
    func textOrderMatchesTimeOrder() {
        let instants: [Int64] = [0, 5, 999, 1000, 60_000, 1_510_384_755_549, 1_510_384_755_550, 4_102_444_800_000]
        let texts = instants.map(ISODate.string(fromMilliseconds:))
        #expect(texts == texts.sorted())
    }

    /// Days are checked against the month's length (leap years included) and offsets against
    /// 23:59, so an impossible date is refused rather than silently moved.
    @Test("Impossible calendar dates and offsets are rejected", arguments: [
        "2017-02-31T00:00:00Z", "2019-02-29", "2017-04-31", "2017-11-11T07:19:15+99:99",
    ])
    func impossibleDates(text: String) {
        #expect(ISODate.milliseconds(from: text) == nil)
    }

    /// An offset can push a 4-digit year out of 0000...9999; such instants have no canonical
    /// text, so they are refused instead of written as text that wouldn't parse back.
    @Test("Instants outside years 0000...9999 are refused", arguments: [
        "9999-12-31T23:00:00-05:00", "0000-01-01T00:00:00+01:00",
    ])
    func normalizedOutOfRange(text: String) {
        #expect(ISODate.normalized(text) == nil)
        #expect(ISODate.milliseconds(from: text) == nil)
    }

    @Test("Current time formats to a parseable canonical instant")
    func currentTime() {
        let now = ObjectID.currentMilliseconds()
        #expect(now > 1_600_000_000_000)
        #expect(ISODate.milliseconds(from: ISODate.string(fromMilliseconds: now)) == now)
    }
}
