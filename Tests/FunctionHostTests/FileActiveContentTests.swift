import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 23, item 7 (stored XSS): a client uploads a page (HTML, SVG, XML, JavaScript...) and
/// sends its URL to a victim; opened from the API's own origin it would run there. Each fails on
/// the code before the fix, which served the client's type as it came, with no protection.
@Suite struct FileActiveContentTests {
    /// What a browser could run, uploaded the ways a client can say a type.
    static let active: [(name: String, type: String)] = [
        ("page.html", "text/html"), ("page.htm", "TEXT/HTML; charset=utf-8"), ("page.xhtml", "application/xhtml+xml"),
        ("logo.svg", "image/svg+xml"), ("feed.xml", "application/xml"), ("data.xml", "text/xml"),
        ("app.js", "application/javascript"), ("app.mjs", "text/javascript"), ("doc.pdf", "application/pdf"),
        ("odd.bin", "application/x-unknown-thing"), ("sneaky.png", "image/png, text/html"),
        ("sneaky2.txt", "text/plain; charset=utf-8, text/html"), ("comma.mp4", "video/mp4,text/html"),
    ]

    /// The headers every file answer carries.
    static func expectProtected(_ headers: HTTPFields, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(what)", sourceLocation: sourceLocation)
        #expect(
            headers[HTTPField.Name("Content-Security-Policy")!]?.contains("sandbox") == true, "\(what)",
            sourceLocation: sourceLocation)
    }

    @Test func activeTypesAreDownloadedNeverOpened() async throws {
        try await FileFixture.run { api, _ in
            for (name, type) in Self.active {
                let file = try await FileFixture.upload(api, name, "<script>alert(document.cookie)</script>", type: type)
                let key = try #require(file["key"]?.stringValue)
                for path in ["/files/\(key)", "/files/\(key)/\(name)"] {
                    let reply = try await api.get(path, headers: Headers.none)
                    #expect(reply.status == .ok, "\(name): \(reply)")
                    #expect(reply.header("Content-Disposition")?.hasPrefix("attachment") == true, "\(name) \(type): \(reply.headers)")
                    Self.expectProtected(reply.headers, "\(name) \(type)")
                    // The client's text never reaches the header as it came: `a, text/html` is read
                    // by browsers as text/html.
                    #expect(reply.header("Content-Type")?.contains(",") == false, "\(name): \(reply.headers)")
                }
            }
        }
    }

    @Test func aTypeTakenFromTheNameIsHandledTheSame() async throws {
        try await FileFixture.run { api, _ in
            // No Content-Type: the server takes it from the name (text/html here).
            let reply = try await FileFixture.exchange(
                api, .post, "/1.1/files/page.html", headers: Headers.client, body: Array("<h1>hi</h1>".utf8))
            #expect(reply.status == .created, "\(reply.status)")
            let file = try JSONValue(parsing: reply.body)
            #expect(file["mime_type"] == "text/html", "\(file)")
            let key = try #require(file["key"]?.stringValue)
            let served = try await api.get("/files/\(key)", headers: Headers.none)
            #expect(served.header("Content-Disposition")?.hasPrefix("attachment") == true, "\(served.headers)")
            #expect(served.header("Content-Disposition")?.contains("filename=\"page.html\"") == true, "\(served.headers)")
            Self.expectProtected(served.headers, "page.html by name")
        }
    }

    @Test func passiveTypesAreShownInlineAndStillProtected() async throws {
        try await FileFixture.run { api, _ in
            for (name, type) in [("a.png", "image/png"), ("b.txt", "text/plain; charset=utf-8"), ("c.mp4", "video/mp4")] {
                let file = try await FileFixture.upload(api, name, "0123456789", type: type)
                let key = try #require(file["key"]?.stringValue)
                let reply = try await api.get("/files/\(key)", headers: Headers.none)
                #expect(reply.status == .ok && reply.header("Content-Disposition") == nil, "\(name): \(reply.headers)")
                #expect(reply.header("Content-Type") == type, "\(name): \(reply.headers)")
                Self.expectProtected(reply.headers, name)
            }
        }
    }

    @Test func everyAnswerOfAFileCarriesTheProtection() async throws {
        try await FileFixture.run { api, _ in
            let file = try await FileFixture.upload(api, "page.html", "<b>0123456789</b>", type: "text/html")
            let key = try #require(file["key"]?.stringValue)
            let whole = try await api.get("/files/\(key)", headers: Headers.none)
            let etag = try #require(whole.header("ETag"))
            let answers: [(String, HTTPRequest.Method, HTTPFields, HTTPResponse.Status)] = [
                ("HEAD", .head, Headers.none, .ok),
                ("range", .get, Headers.make([("Range", "bytes=0-3")]), .partialContent),
                ("304", .get, Headers.make([("If-None-Match", etag)]), .notModified),
                ("416", .get, Headers.make([("Range", "bytes=500-600")]), .rangeNotSatisfiable),
            ]
            for (what, method, headers, status) in answers {
                let reply = try await api.send(method, "/files/\(key)", headers: headers)
                #expect(reply.status == status, "\(what): \(reply)")
                Self.expectProtected(reply.headers, what)
                #expect(reply.header("Content-Disposition")?.hasPrefix("attachment") == true, "\(what): \(reply.headers)")
            }
        }
    }

    @Test func aNameWithQuotesOrNonASCIIGivesAWellFormedDisposition() async throws {
        try await FileFixture.run { api, _ in
            let name = "r\u{E9}sum\u{E9} \"x\".html"
            let encoded = try #require(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let file = try await FileFixture.upload(api, encoded, "<i>x</i>", type: "text/html")
            let key = try #require(file["key"]?.stringValue)
            let reply = try await api.get("/files/\(key)", headers: Headers.none)
            let disposition = try #require(reply.header("Content-Disposition"), "\(reply.headers)")
            #expect(disposition.hasPrefix("attachment; filename=\"r_sum___x_.html\""), "\(disposition)")
            #expect(disposition.hasSuffix("filename*=UTF-8''r%C3%A9sum%C3%A9%20%22x%22.html"), "\(disposition)")
        }
    }
}
