import Crypto
import Foundation
import Hummingbird
import NIOCore

/// The console's page, script and style, compiled into the binary (`PackageResources`, SwiftPM's
/// `embedInCode`): no files beside `functionhost`, no CDN. The script and style are served under
/// names holding their content's hash, cached for good; the page names them, and is revalidated
/// by its own hash on every visit, so a new build is seen at once.
struct ConsoleAssets: Sendable {
    /// One file as served.
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        /// The content's hash, quoted as an entity tag.
        let etag: String
    }

    /// The page (`/console`).
    let page: Asset
    /// The scripts and style by their hashed names (`console-1a2b3c4d5e6f7a8b.js`).
    let files: [String: Asset]

    /// The Content-Security-Policy of every console answer: nothing but the console's own
    /// script, style and requests; no inline script or style, no framing, no other base or form target.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// The assets as built into the binary: the core script first (requests, login, the views'
    /// switching), then one script per page, each registering its view with the core.
    static let embedded = ConsoleAssets(
        html: PackageResources.console_html,
        scripts: [
            PackageResources.console_js, PackageResources.console_data_js, PackageResources.console_schema_js,
            PackageResources.console_users_js, PackageResources.console_functions_js, PackageResources.console_deploys_js,
            PackageResources.console_variables_js, PackageResources.console_logs_js, PackageResources.console_metrics_js,
            PackageResources.console_queue_js,
        ],
        style: PackageResources.console_css)

    init(html: [UInt8], scripts: [[UInt8]], style: [UInt8]) {
        let styleName = "console-\(Self.hash(style)).css"
        var files = [styleName: Self.asset(style, "text/css; charset=utf-8")]
        var tags: [String] = []
        for script in scripts {
            let name = "console-\(Self.hash(script)).js"
            files[name] = Self.asset(script, "text/javascript; charset=utf-8")
            // Deferred scripts run in the page's order, after it is parsed.
            tags.append("<script src=\"/console/assets/\(name)\" defer></script>")
        }
        let page = String(decoding: html, as: UTF8.self)
            .replacingOccurrences(of: "{{scripts}}", with: tags.joined(separator: "\n"))
            .replacingOccurrences(of: "{{style}}", with: "/console/assets/\(styleName)")
        self.page = Self.asset(Array(page.utf8), "text/html; charset=utf-8")
        self.files = files
    }

    /// The policy of the page served to `authority` (the request's `Host`): scripts only from
    /// the console's own assets folder there, so that a file any client uploaded (served from
    /// the same origin under `/files/`) can't run as a console script if HTML ever got into the
    /// page. A name CSP can't write as a host (an IPv6 literal) keeps `'self'`.
    static func contentSecurityPolicy(authority: String?) -> String {
        guard let authority, !authority.isEmpty, authority.utf8.count <= 300,
            authority.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2E
                    || byte == 0x2D
            })
        else { return contentSecurityPolicy }
        return contentSecurityPolicy.replacingOccurrences(of: "script-src 'self'", with: "script-src \(authority)/console/assets/")
    }

    /// The answer for `asset`: 304 when the client holds it already.
    func response(_ asset: Asset, to request: Request, immutable: Bool) -> Response {
        var headers = Self.securityHeaders
        if !immutable { headers[.contentSecurityPolicy] = Self.contentSecurityPolicy(authority: request.head.authority) }
        headers[.eTag] = asset.etag
        headers[.cacheControl] = immutable ? "public, max-age=31536000, immutable" : "no-cache"
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.bytes))
    }

    /// The headers every console answer carries.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff",
        .referrerPolicy: "no-referrer", .xFrameOptions: "DENY",
    ]

    private static func asset(_ bytes: [UInt8], _ contentType: String) -> Asset {
        Asset(bytes: ByteBuffer(bytes: bytes), contentType: contentType, etag: "\"\(hash(bytes))\"")
    }

    /// The first 16 hex digits of the content's SHA-256.
    static func hash(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
