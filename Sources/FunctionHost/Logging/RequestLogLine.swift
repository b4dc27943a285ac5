import Logging

/// What a request's log line says, as the request hands it over: its raw fields. The path is
/// redacted and the duration printed when the line is formatted (`metadata`), which for the
/// server's own log happens on the log's writer thread, off the request's path.
struct RequestLogLine: Sendable {
    var method: String
    /// The route's pattern (`/1.1/functions/{name}`), or `unmatched`.
    var route: String
    /// The path as the client sent it: `metadata` redacts it.
    var path: String
    var status: Int
    var duration: Duration
    /// The environment `X-LC-Prod` picked.
    var environment: String

    /// The line's message.
    static let message = "request"

    /// The line's fields, as the log prints them.
    var metadata: Logger.Metadata {
        Logger.Metadata(uniqueKeysWithValues: printedFields.map { ($0.key, .string($0.value)) })
    }

    /// The line's fields as the log prints them, in key order.
    var printedFields: [(key: String, value: String)] {
        [
            ("environment", environment), ("method", method), ("ms", Self.milliseconds(duration)),
            ("path", RedactedPath.of(path)), ("route", route), ("status", String(status)),
        ]
    }

    /// The keys of `printedFields`, in their order.
    static let fieldNames: Set<String> = ["environment", "method", "ms", "path", "route", "status"]

    /// Appends ` key=value` for each of `printedFields` to `out`, with the pairs of `extra`
    /// (sorted by key, none of `fieldNames`) merged in by key: the bytes `printedFields` would
    /// print, without making its strings and array (the writer does this for every request).
    /// `ConsoleLogHandlerTests` holds the two to the same text, field by field.
    func appendFields(mergedWith extra: [(key: String, value: String)], to out: inout [UInt8]) {
        var next = extra.startIndex
        func pair(_ key: String, _ value: String) {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: key.utf8)
            out.append(UInt8(ascii: "="))
            out.append(contentsOf: value.utf8)
        }
        func field(_ key: String, _ value: (inout [UInt8]) -> Void) {
            while next < extra.endIndex, extra[next].key < key {
                pair(extra[next].key, extra[next].value)
                next += 1
            }
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: key.utf8)
            out.append(UInt8(ascii: "="))
            value(&out)
        }
        field("environment") { $0.append(contentsOf: environment.utf8) }
        field("method") { $0.append(contentsOf: method.utf8) }
        field("ms") { Self.appendMilliseconds(duration, to: &$0) }
        field("path") { $0.append(contentsOf: RedactedPath.of(path).utf8) }
        field("route") { $0.append(contentsOf: route.utf8) }
        field("status") { Self.appendDecimal(status, to: &$0) }
        for rest in extra[next...] { pair(rest.key, rest.value) }
    }

    /// `duration` in milliseconds with three decimals (`0.019`), appended to `out`; a request's
    /// duration is never negative.
    static func appendMilliseconds(_ duration: Duration, to out: inout [UInt8]) {
        let (seconds, attoseconds) = duration.components
        let micros = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        appendDecimal(Int(micros / 1000), to: &out)
        out.append(UInt8(ascii: "."))
        let fraction = Int(micros % 1000)
        out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: fraction / 100))
        out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: fraction / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: fraction % 10))
    }

    /// `value` in decimal, appended to `out`.
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        out[start...].reverse()
    }

    /// About how many bytes the line's own part takes, counted against the log's buffer before
    /// it is formatted: the fields' lengths and about what the text around them takes (the
    /// time, the keys, the status, the duration).
    var estimatedSize: Int {
        120 + method.utf8.count + route.utf8.count + path.utf8.count + environment.utf8.count
    }

    /// `duration` in milliseconds with three decimals (`0.019`).
    static func milliseconds(_ duration: Duration) -> String {
        var bytes: [UInt8] = []
        appendMilliseconds(duration, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
