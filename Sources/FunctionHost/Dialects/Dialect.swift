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

    /// The version prefixes only the dialects use.
    static let prefixes: [String: Dialect] = ["2.0": .maxLeap, "3.0": .las]
    /// LeanCloud's prefixes, which a request in a dialect's headers may still use.
    static let leanCloudPrefixes: Set<String> = ["1.1", "1"]

    /// The dialect of a request and the path after its version prefix (`classes/Post`), or nil for
    /// a LeanCloud request. Headers name the dialect where they say one (`X-ML-` first, as
    /// MaxLeap's own server reads them); otherwise the prefix does. Only API paths can be in a
    /// dialect: file downloads, email pages and the engine's ping stay as they are.
    static func of(path: String, headers: HTTPFields) -> (dialect: Dialect, route: Substring)? {
        let trimmed = path.drop { $0 == "/" }
        guard let slash = trimmed.firstIndex(of: "/") else { return nil }
        let version = String(trimmed[..<slash])
        let route = trimmed[trimmed.index(after: slash)...]
        let byHeaders = DialectHeaders.family(of: headers)?.dialect
        if let byPrefix = prefixes[version] { return (byHeaders ?? byPrefix, route) }
        if leanCloudPrefixes.contains(version), let byHeaders { return (byHeaders, route) }
        return nil
    }
}
