import HTTPTypes

/// The REST dialects served next to LeanCloud's `/1.1`: LAS (`X-LAS-*`, the older `X-ZCloud-*`,
/// `/3.0`) and MaxLeap (`X-ML-*`, `/2.0`). Both answer in the same shapes (`errorCode`, 200 on
/// create, `number` on update and delete, raw batch arrays and function results); the dialect is
/// decided once per request, by `Dialect.of(path:headers:)`, and rides in the request context.
public enum Dialect: String, Sendable {
    /// LAS: `X-LAS-*` or `X-ZCloud-*` headers, or a `/3.0/` path.
    case las
    /// MaxLeap: `X-ML-*` headers, or a `/2.0/` path without LAS headers.
    case maxLeap

    /// The dialect of a request and the path after its version prefix (`classes/Post`), or nil for
    /// a LeanCloud request. Headers name the dialect where they say one (`X-ML-` first, as
    /// MaxLeap's own server reads them); otherwise the prefix does. Only API paths can be in a
    /// dialect: file downloads, email pages and the engine's ping stay as they are.
    ///
    /// Every request passes here: the prefix is compared in place (no copy), and the headers are
    /// read only for an API path, in one pass.
    static func of(path: String, headers: HTTPFields) -> (dialect: Dialect, route: Substring)? {
        let trimmed = path.drop { $0 == "/" }
        guard let slash = trimmed.firstIndex(of: "/") else { return nil }
        let route = trimmed[trimmed.index(after: slash)...]
        // The version prefixes only the dialects use; LeanCloud's may still carry a dialect's headers.
        let byPrefix: Dialect?
        switch trimmed[..<slash] {
        case "2.0": byPrefix = .maxLeap
        case "3.0": byPrefix = .las
        case "1.1", "1": byPrefix = nil
        default: return nil
        }
        let byHeaders = DialectHeaders.family(of: headers)?.dialect
        guard let dialect = byHeaders ?? byPrefix else { return nil }
        return (dialect, route)
    }
}
