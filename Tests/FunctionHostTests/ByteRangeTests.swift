import TestSupport
import Testing

@testable import FunctionHost

@Suite struct ByteRangeTests {
    @Test func oneRangeIsRead() {
        #expect(ByteRange.parse("bytes=2-4", size: 10) == .range(ByteRange(start: 2, end: 4)))
        #expect(ByteRange.parse("bytes=5-", size: 10) == .range(ByteRange(start: 5, end: 9)))
        #expect(ByteRange.parse("bytes=-3", size: 10) == .range(ByteRange(start: 7, end: 9)))
        #expect(ByteRange.parse("bytes=-30", size: 10) == .range(ByteRange(start: 0, end: 9)))
        #expect(ByteRange.parse("bytes=8-100", size: 10) == .range(ByteRange(start: 8, end: 9)))
    }

    @Test func rangesPastTheEndAreUnsatisfiable() {
        #expect(ByteRange.parse("bytes=10-", size: 10) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-0", size: 10) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-", size: 0) == .unsatisfiable)
    }

    @Test func whatIsNotOneByteRangeServesTheWholeFile() {
        #expect(ByteRange.parse(nil, size: 10) == .whole)
        #expect(ByteRange.parse("items=1-2", size: 10) == .whole)
        #expect(ByteRange.parse("bytes=1-2,4-5", size: 10) == .whole)
        #expect(ByteRange.parse("bytes=5-2", size: 10) == .whole)
        #expect(ByteRange.parse("bytes=a-b", size: 10) == .whole)
    }
}
