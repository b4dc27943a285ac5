/// A request path as the request log writes it: the secret a path carries replaced by `***`.
///
/// Email links (`/1.1/resetPassword/{token}`, `/1.1/emailVerify/{token}`), token uploads
/// (`/1.1/fileUploads/{token}`) and the SMS code routes (`/1.1/verifyMobilePhone/{code}`, ...) put
/// a live credential in the path; file URLs (`/files/{key}`) are one for whoever holds them. A
/// log that keeps them hands each one to everyone who reads the log, or ships it elsewhere.
enum RedactedPath {
    /// The path segments followed by a secret, after the API version (`1.1`, `1`).
    static let secretAfter: Set<Substring> = [
        "resetPassword", "emailVerify", "fileUploads", "verifyMobilePhone", "resetPasswordBySmsCode",
        "verifySmsCode",
    ]

    /// The path with every secret segment replaced (the rest kept, so the log still tells which
    /// route was asked for).
    static func of(_ path: String) -> String {
        // Most paths hold no secret: told without splitting them (every request's line asks).
        // A path with an empty segment (`//1.1/resetPassword/...`) is still routed, the router
        // skipping empty segments: it is always split, as the router sees it.
        guard needsSplitting(path) else { return path }
        let segments = path.split(separator: "/")
        // ["1.1", "resetPassword", token, ...] or ["files", key, name?]
        let secretIndex: Int
        if segments.count > 2, segments[0] == "1.1" || segments[0] == "1", secretAfter.contains(segments[1]) {
            secretIndex = 2
        } else if segments.count > 1, segments[0] == "files" {
            secretIndex = 1
        } else {
            return path
        }
        var redacted = segments
        redacted[secretIndex] = "***"
        return "/" + redacted.joined(separator: "/") + (path.hasSuffix("/") ? "/" : "")
    }

    /// Whether `path` has an empty segment, is a file URL or names a secret-bearing route after
    /// its version. An ASCII path (any a client sends unescaped) is read byte by byte, where a
    /// byte is a character: `String`'s character-wise search took a quarter of the request
    /// line's cost.
    private static func needsSplitting(_ path: String) -> Bool {
        if let answer = path.utf8.withContiguousStorageIfAvailable(asciiNeedsSplitting), let answer { return answer }
        return path.contains("//") || mayHoldSecret(path)
    }

    /// `needsSplitting` for an ASCII path's bytes; nil for any other.
    private static func asciiNeedsSplitting(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        let slash = UInt8(ascii: "/")
        var previous: UInt8 = 0
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            if byte == slash, previous == slash { return true }
            previous = byte
        }
        if bytes.starts(with: "/files/".utf8) { return true }
        for version in ["/1.1/", "/1/"] where bytes.starts(with: version.utf8) {
            let segment = bytes[version.utf8.count...].prefix { $0 != slash }
            return secretAfterBytes.contains { segment.elementsEqual($0) }
        }
        return false
    }

    /// `secretAfter`, as bytes.
    private static let secretAfterBytes = secretAfter.map { Array($0.utf8) }

    /// Whether `path` is a file URL or names a secret-bearing route after its version.
    private static func mayHoldSecret(_ path: String) -> Bool {
        if path.hasPrefix("/files/") { return true }
        for version in ["/1.1/", "/1/"] where path.hasPrefix(version) {
            return secretAfter.contains(path.dropFirst(version.count).prefix { $0 != "/" })
        }
        return false
    }
}
