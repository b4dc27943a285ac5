import Crypto
import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// One way a LAS or MaxLeap client talks: its header family and its version prefix.
struct DialectCase: Sendable, CustomStringConvertible {
    /// `ML`, `LAS` or `ZCloud`.
    let family: String
    /// `2.0` or `3.0`.
    let version: String

    /// MaxLeap's headers on `/2.0`, LAS's on `/2.0` and `/3.0`, and the older ZCloud ones.
    static let all = [
        DialectCase(family: "ML", version: "2.0"), DialectCase(family: "LAS", version: "2.0"),
        DialectCase(family: "LAS", version: "3.0"), DialectCase(family: "ZCloud", version: "2.0"),
    ]
    /// One per family, for the longer flows.
    static let families = [
        DialectCase(family: "ML", version: "2.0"), DialectCase(family: "LAS", version: "3.0"),
    ]

    var description: String { "X-\(family)-* on /\(version)" }

    /// A path under the version prefix.
    func path(_ route: String) -> String { "/\(version)/\(route)" }

    /// The app id and REST API key.
    var client: HTTPFields { headers(("APIKey", "key")) }
    /// The app id and the client key (mobile SDKs); the same app key.
    var clientKey: HTTPFields { headers(("ClientKey", "key")) }
    /// The app id and the master key.
    var master: HTTPFields { headers(("MasterKey", "master")) }
    /// The API key and a user's session.
    func session(_ token: String) -> HTTPFields { headers(("APIKey", "key"), ("Session-Token", token)) }

    /// `X-<family>-AppId: app` and the given `X-<family>-*` headers.
    func headers(_ pairs: (String, String)...) -> HTTPFields {
        Headers.make([("X-\(family)-AppId", "app")] + pairs.map { ("X-\(family)-\($0.0)", $0.1) })
    }
}

/// Checks a dialect error answer: a 4xx status, exactly `{"errorCode","errorMessage"}`.
func expectDialectError(
    _ reply: Reply, code: Int64, status: HTTPResponse.Status? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect((400..<500).contains(reply.status.code), "expected a 4xx answer, got \(reply)", sourceLocation: sourceLocation)
    if let status { #expect(reply.status == status, "status of \(reply)", sourceLocation: sourceLocation) }
    #expect(reply["errorCode"] == .int(code), "code of \(reply)", sourceLocation: sourceLocation)
    #expect(fieldNames(reply.json) == ["errorCode", "errorMessage"], "members of \(reply)", sourceLocation: sourceLocation)
}

/// MaxLeap's sign (`sha256hex(key + timestamp),timestamp[,master]`) and LeanCloud's
/// (`md5hex(timestamp + key),timestamp[,master]`), computed by the tests.
enum DialectSign {
    static func sha256(key: String, at milliseconds: Int64, master: Bool = false) -> String {
        let hex = SHA256.hash(data: Array((key + String(milliseconds)).utf8)).map { String(format: "%02x", $0) }.joined()
        return "\(hex),\(milliseconds)" + (master ? ",master" : "")
    }

    static func md5(key: String, at milliseconds: Int64, master: Bool = false) -> String {
        "\(MD5.hex(String(milliseconds) + key)),\(milliseconds)" + (master ? ",master" : "")
    }

    /// Now, in milliseconds.
    static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
