import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOHTTP1
import TestSupport
import Testing

/// `--files-url`: new files' urls are `<files-url>/<key>` and the host serves them on that host
/// name, as LeanCloud's file domains did, while the API's host name keeps its routes.
@Suite struct FileDomainTests {
    static let domain = "files.example.com"

    /// Runs a host (over a socket, so requests can name any `Host`) with the file domain set.
    static func run(_ body: @Sendable (API, String) async throws -> Void) async throws {
        try await EdgeFixture.run(transport: .socket, configure: { $0.fileDomain = FileDomain(url: "https://\(domain)/") }, body)
    }

    @Test func newFilesAreServedAtTheFileDomainsRoot() async throws {
        try await Self.run { api, _ in
            let file = try await FileFixture.upload(api, "notes.txt", "on the file domain")
            let key = try #require(file["key"]?.stringValue)
            #expect(file["url"] == .string("https://\(Self.domain)/\(key)"))

            let got = try await EdgeFixture.send(port: api.port, .GET, "/\(key)", host: Self.domain, headers: [])
            #expect(got.status == .ok && got.text == "on the file domain", "\(got)")
            #expect(got.header("Content-Type") == "text/plain")
            #expect(got.header("X-Content-Type-Options") == "nosniff")
            #expect(got.header("ETag") == "\"\(MD5.hex("on the file domain"))\"")
            // Any case, any port: a proxy in front may listen on 443 and pass its own.
            let head = try await EdgeFixture.send(port: api.port, .HEAD, "/\(key)", host: "Files.Example.COM:8443", headers: [])
            #expect(head.status == .ok && head.header("Content-Length") == "18", "\(head)")
            let range = try await EdgeFixture.send(
                port: api.port, .GET, "/\(key)", host: Self.domain, headers: [("Range", "bytes=3-6")])
            #expect(range.status == .partialContent && range.text == "the ", "\(range)")
            #expect(range.header("Content-Range") == "bytes 3-6/18")

            // The API's host name keeps its routes: /<key> is no file there, /files/<key> is.
            let onAPI = try await EdgeFixture.send(port: api.port, .GET, "/\(key)", host: "api.example.com", headers: [])
            #expect(onAPI.status != .ok, "\(onAPI)")
            let files = try await EdgeFixture.send(port: api.port, .GET, "/files/\(key)", host: "api.example.com", headers: [])
            #expect(files.status == .ok && files.text == "on the file domain")
            let date = try await EdgeFixture.send(port: api.port, .GET, "/1.1/date", host: "api.example.com")
            #expect(date.status == .ok, "\(date)")
        }
    }

    /// An attachment keeps its disposition on the file domain, and a name kept in the url
    /// (`keep_file_name`) follows the key there too.
    @Test func aKeptNameAndTheDispositionFollowTheKey() async throws {
        try await Self.run { api, _ in
            let reply = try await api.send(
                .post, "/1.1/files/page.html", headers: FileFixture.typed("text/html"), body: "<script>alert(1)</script>")
            let key = try #require(reply["key"]?.stringValue, "\(reply)")
            let page = try await EdgeFixture.send(port: api.port, .GET, "/\(key)", host: Self.domain, headers: [])
            #expect(page.status == .ok)
            #expect(page.header("Content-Disposition")?.hasPrefix("attachment") == true, "\(page.headers)")
            #expect(page.header("Content-Security-Policy") == "sandbox")

            let issued = try await api.post(
                "/1.1/fileTokens", FileWireTests.tokenBody("résumé.txt", size: 4, extra: ["keep_file_name": true]))
            let issuedKey = try #require(issued["key"]?.stringValue, "\(issued)")
            #expect(issued["url"] == .string("https://\(Self.domain)/\(issuedKey)/r%C3%A9sum%C3%A9.txt"), "\(issued)")
            let upload = try await api.send(.put, try FileFixture.path(issued["upload_url"]), headers: Headers.none, body: "kept")
            #expect(upload.status == .ok, "\(upload)")
            let named = try await EdgeFixture.send(
                port: api.port, .GET, "/\(issuedKey)/r%C3%A9sum%C3%A9.txt", host: Self.domain, headers: [])
            #expect(named.status == .ok && named.text == "kept", "\(named)")
        }
    }

    /// What the Python SDK does with a file given a key (`File.key`, the master key): it asks
    /// `/fileTokens` with that key, uploads to `upload_url`, and keeps the `url` answered, which
    /// must then serve the bytes at `/<key>`.
    @Test func aFileSavedWithAKeyIsServedAtThatKey() async throws {
        try await Self.run { api, _ in
            let issued = try await api.post(
                "/1.1/fileTokens", headers: Headers.master, FileWireTests.tokenBody("chosen.txt", size: 6, extra: ["key": "chosen-key.txt"]))
            #expect(issued["key"] == "chosen-key.txt", "\(issued)")
            #expect(issued["url"] == .string("https://\(Self.domain)/chosen-key.txt"))
            let upload = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "chosen")
            #expect(upload.status == .ok, "\(upload)")
            #expect(try await api.post("/1.1/fileCallback", ["token": issued["token"] ?? .null, "result": true]).status == .ok)
            let got = try await EdgeFixture.send(port: api.port, .GET, "/chosen-key.txt", host: Self.domain, headers: [])
            #expect(got.status == .ok && got.text == "chosen", "\(got)")
            let fetched = try await api.get("/1.1/files/\(try #require(issued["objectId"]?.stringValue))")
            #expect(fetched["url"] == .string("https://\(Self.domain)/chosen-key.txt"), "\(fetched)")
        }
    }

    @Test func theOptionTakesOnlyAURLWithAHostAndNoPath() {
        #expect(FileDomain(url: "https://files.example.com")?.hostName == "files.example.com")
        #expect(FileDomain(url: "http://Files.Example.com:8080/")?.base == "http://Files.Example.com:8080")
        for bad in ["files.example.com", "ftp://files.example.com", "https://files.example.com/sub", "https://files.example.com?x=1",
            "https://user:pw@files.example.com", "https://", "https://files.example.com#top", "https://" + String(repeating: "a", count: 400) + ".com"]
        {
            #expect(FileDomain(url: bad) == nil, "\(bad)")
        }
    }
}
