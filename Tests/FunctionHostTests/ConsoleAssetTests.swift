import HTTPTypes
import Foundation
import TestSupport
import Testing

@testable import FunctionHost

/// The console's page and assets: built into the binary, served under a strict CSP with no
/// inline script, cached by their content's hash, and granted to no other origin.
@Suite struct ConsoleAssetTests {
    /// `scripts`: the page's own script source (the page names its host's assets folder; the
    /// in-process client's host is `localhost`).
    static func expectHardened(_ reply: Reply, scripts: String = "'self'", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            reply.header("Content-Security-Policy")
                == "default-src 'self'; script-src \(scripts); style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            "\(reply.headers)", sourceLocation: sourceLocation)
        #expect(reply.header("X-Content-Type-Options") == "nosniff", sourceLocation: sourceLocation)
        #expect(reply.header("Referrer-Policy") == "no-referrer", sourceLocation: sourceLocation)
    }

    /// The script and style the page names.
    static func assetPaths(in page: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"(?:src|href)="(/console/assets/[^"]+)""#)
        return pattern.matches(in: page, range: NSRange(page.startIndex..., in: page)).compactMap {
            Range($0.range(at: 1), in: page).map { String(page[$0]) }
        }
    }

    @Test func thePageIsServedHardenedAndRevalidated() async throws {
        try await TestServer.run { api in
            let page = try await api.get("/console", headers: Headers.none)
            #expect(page.status == .ok && page.header("Content-Type") == "text/html; charset=utf-8", "\(page)")
            Self.expectHardened(page, scripts: "localhost/console/assets/")
            #expect(page.header("Cache-Control") == "no-cache")
            let etag = try #require(page.header("ETag"))
            let again = try await api.get("/console", headers: Headers.make([("If-None-Match", etag)]))
            #expect(again.status == .notModified && again.text.isEmpty)
            // No inline script or style, no handler attributes: the CSP would refuse them anyway.
            #expect(!page.text.contains("<style"))
            #expect(page.text.components(separatedBy: "<script").dropFirst().allSatisfy { $0.hasPrefix(" src=\"/console/assets/") })
            #expect(page.text.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
            #expect(page.text.range(of: #"\sstyle="#, options: .regularExpression) == nil)
            #expect(!page.text.contains("{{"), "every placeholder filled")
        }
    }

    @Test func theAssetsAreNamedByTheirHashAndCachedForGood() async throws {
        try await TestServer.run { api in
            let page = try await api.get("/console", headers: Headers.none)
            let paths = Self.assetPaths(in: page.text)
            #expect(paths.count == 11, "the style and ten scripts: \(paths)")
            for path in paths {
                let asset = try await api.get(path, headers: Headers.none)
                #expect(asset.status == .ok, "\(path): \(asset)")
                Self.expectHardened(asset)
                #expect(asset.header("Cache-Control") == "public, max-age=31536000, immutable")
                let hash = ConsoleAssets.hash(Array(asset.text.utf8))
                #expect(path.contains(hash), "\(path) names its content's hash \(hash)")
                let type = path.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"
                #expect(asset.header("Content-Type") == type)
            }
            for unknown in ["/console/assets/console.js", "/console/assets/..%2Fkeys.json", "/console/assets/console-0000000000000000.js"] {
                let reply = try await api.get(unknown, headers: Headers.none)
                #expect(reply.status == .notFound, "\(unknown): \(reply)")
            }
        }
    }

    @Test func noOtherOriginIsGrantedTheConsole() async throws {
        try await TestServer.run { api in
            let page = try await api.get("/console", headers: Headers.make([("Origin", "https://evil.example")]))
            #expect(page.header("Access-Control-Allow-Origin") == nil, "\(page.headers)")
            let preflight = try await api.send(
                .options, "/console/api/1.1/classes/Todo",
                headers: Headers.make([("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")]))
            #expect(preflight.status == .forbidden && preflight.header("Access-Control-Allow-Origin") == nil, "\(preflight)")
            // The API's own routes still grant every origin, as LeanCloud's do.
            let api11 = try await api.get("/1.1/date", headers: Headers.make([("Origin", "https://app.example")]))
            #expect(api11.header("Access-Control-Allow-Origin") == "https://app.example")
        }
    }
}
