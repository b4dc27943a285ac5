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

    /// About how many bytes the line's own part takes, counted against the log's buffer before
    /// it is formatted: the fields' lengths and about what the text around them takes (the
    /// time, the keys, the status, the duration).
    var estimatedSize: Int {
        120 + method.utf8.count + route.utf8.count + path.utf8.count + environment.utf8.count
    }

    /// `duration` in milliseconds with three decimals (`0.019`).
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return "\(micros / 1000).\(String(micros % 1000 + 1000).dropFirst())"
    }
}
