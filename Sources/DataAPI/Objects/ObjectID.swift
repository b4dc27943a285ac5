#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Object ids and timestamps.
public enum ObjectID {
    /// A new 24-hex-digit id: 4 bytes of seconds (so ids sort roughly by creation) and 8 random bytes.
    public static func make() -> String {
        let seconds = UInt32(truncatingIfNeeded: currentMilliseconds() / 1000)
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        return hex(UInt64(seconds), digits: 8) + hex(random, digits: 16)
    }

    /// A random token of `byteCount` bytes as lowercase hex, for keys and session tokens.
    public static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var out = ""
        for _ in 0..<((byteCount + 7) / 8) { out += hex(generator.next(), digits: 16) }
        return String(out.prefix(byteCount * 2))
    }

    /// Milliseconds since 1970, UTC.
    public static func currentMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
