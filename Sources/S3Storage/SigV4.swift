import Crypto
import DataAPI
import Foundation

/// AWS Signature Version 4 for S3, written on swift-crypto rather than taken from a client
/// library: no maintained S3 client is in the package set this project may depend on, and
/// signing is a few hashes over a canonical text. Both forms: the `Authorization` header of a
/// request the host sends, and the query of a presigned URL it hands to a browser.
struct SigV4: Sendable {
    let accessKey: String
    let secretKey: String
    let region: String

    /// The SHA-256 of no bytes: the payload hash of a request without a body.
    static let emptyPayloadHash = StoredContent.hex(SHA256.hash(data: Data()))
    /// What a presigned URL signs in place of a payload it can't know.
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// A request to sign: its method, host, path (already encoded), query and headers.
    struct Request {
        var method: String
        var host: String
        /// The path as sent, each segment already percent-encoded (`encode(path:)`).
        var path: String
        var query: [(String, String)] = []
        /// Headers to sign besides `host`, `x-amz-date` and `x-amz-content-sha256`.
        var headers: [(String, String)] = []
        var payloadHash: String = SigV4.emptyPayloadHash
    }

    /// The headers to send with `request` at `date`: the signed ones and `Authorization`.
    func headers(for request: Request, at date: Date) -> [(String, String)] {
        let stamp = Self.timestamp(date)
        var headers = request.headers.map { ($0.0.lowercased(), $0.1) }
        headers.append(("host", request.host))
        headers.append(("x-amz-date", stamp))
        headers.append(("x-amz-content-sha256", request.payloadHash))
        headers.sort { $0.0 < $1.0 }
        let signed = headers.map(\.0).joined(separator: ";")
        let canonical = [
            request.method, request.path, Self.canonicalQuery(request.query),
            headers.map { "\($0.0):\($0.1.trimmingCharacters(in: .whitespaces))\n" }.joined(), signed, request.payloadHash,
        ].joined(separator: "\n")
        let signature = sign(canonical, stamp: stamp)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope(stamp)),SignedHeaders=\(signed),Signature=\(signature)"
        return headers.filter { $0.0 != "host" } + [("authorization", authorization)]
    }

    /// The query of a presigned GET of `path` at `host`, valid `expiry` seconds from `date`,
    /// with `parameters` of the request's own signed too.
    func presignedQuery(host: String, path: String, expiry: Int, at date: Date, parameters: [(String, String)] = []) -> String {
        let stamp = Self.timestamp(date)
        let query = Self.canonicalQuery(
            parameters + [
                ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(accessKey)/\(scope(stamp))"),
                ("X-Amz-Date", stamp), ("X-Amz-Expires", String(expiry)), ("X-Amz-SignedHeaders", "host"),
            ])
        let canonical = ["GET", path, query, "host:\(host)\n", "host", Self.unsignedPayload].joined(separator: "\n")
        // The signature comes last, as it is made over everything before it.
        return query + "&X-Amz-Signature=" + sign(canonical, stamp: stamp)
    }

    /// `date/region/s3/aws4_request`.
    private func scope(_ stamp: String) -> String {
        "\(stamp.prefix(8))/\(region)/s3/aws4_request"
    }

    /// The signature of a canonical request made at `stamp`.
    private func sign(_ canonical: String, stamp: String) -> String {
        let toSign = [
            "AWS4-HMAC-SHA256", stamp, scope(stamp), StoredContent.hex(SHA256.hash(data: Data(canonical.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [String(stamp.prefix(8)), region, "s3", "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return StoredContent.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key))
    }

    /// Query pairs sorted by name, each side percent-encoded.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (encode($0.0), encode($0.1)) }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// A path with each segment percent-encoded, its slashes kept.
    static func encode(path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }

    /// RFC 3986 encoding as SigV4 wants it: everything but `A-Z a-z 0-9 - _ . ~`, as `%XX`.
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.append(Character(Unicode.Scalar(byte)))
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
    }
}
