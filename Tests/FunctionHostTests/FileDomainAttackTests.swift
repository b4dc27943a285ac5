import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOHTTP1
import TestSupport
import Testing

/// The file domain (`--files-url`) as an attacker sees it: a host name that answers files only,
/// whatever the path, method, headers or `Host` spelling; and the API's host name that gives no
/// file at a bare key.
@Suite struct FileDomainAttackTests {
    static let domain = FileDomainTests.domain

    /// Every one answers 4xx with `{"code","error"}`, never a file, never the API.
    static func expectRefused(_ reply: Reply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((400..<500).contains(reply.status.code), "\(what): \(reply)", sourceLocation: sourceLocation)
        #expect(reply["code"]?.isNumber == true && reply["error"]?.stringValue != nil, "\(what): \(reply)", sourceLocation: sourceLocation)
    }

    @Test func theFileDomainNeverRoutesToTheAPIOrOutsideTheStore() async throws {
        try await FileDomainTests.run { api, directory in
            let file = try await FileFixture.upload(api, "a.txt", "file a")
            let key = try #require(file["key"]?.stringValue)
            try "not a file".write(toFile: directory + "/secret.txt", atomically: true, encoding: .utf8)
            // An object of the host's own that is no `_File` (a deploy's, an engine's): its
            // class and id name nothing on the file domain.
            let master = [("X-LC-Id", "app"), ("X-LC-Key", "master,master")]
            let paths = [
                "/", "/1.1/date", "/1.1/classes/_File", "/1.1/users/me", "/1.1/functions/hello", "/__engine/1/ping",
                "/files/\(key)", "/files/\(key)/a.txt", "/v1/route", "/console", "/metrics",
                "/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/files%2F\(key)", "/\(key)%2F..%2F..%2Fsecret.txt",
                "/.incoming", "/./\(key)", "/\(key)/a.txt/extra", "//\(key)", "/\(key)//", "/%00\(key)",
                "/_Deploy", "/_EngineBundle", "/_File", "/\(String(repeating: "k", count: 201))", "/\(String(repeating: "%41", count: 3000))",
                "/no-such-key.txt",
            ]
            for path in paths {
                let reply = try await EdgeFixture.send(port: api.port, .GET, path, host: Self.domain, headers: master)
                Self.expectRefused(reply, path)
                #expect(!reply.text.contains("not a file") && !reply.text.contains("file a"), "\(path): \(reply)")
            }
            // Only GET and HEAD: no upload, delete or API call through the file domain.
            for method in [HTTPMethod.POST, .PUT, .DELETE, .PATCH] {
                let reply = try await EdgeFixture.send(port: api.port, method, "/\(key)", host: Self.domain, headers: master, body: "{}")
                Self.expectRefused(reply, "\(method)")
            }
            let stillThere = try await EdgeFixture.send(port: api.port, .GET, "/\(key)", host: Self.domain, headers: [])
            #expect(stillThere.text == "file a")
        }
    }

    /// Only the domain's own name is the file domain: look-alikes, a forwarded host a client
    /// wrote, or the name as a port or a path get the API's answers.
    @Test func hostNamesThatOnlyLookLikeTheFileDomainAreTheAPIs() async throws {
        try await FileDomainTests.run { api, _ in
            let file = try await FileFixture.upload(api, "b.txt", "file b")
            let key = try #require(file["key"]?.stringValue)
            let hosts = [
                "files.example.com.evil.com", "evil.files.example.com", "files.example.co", "xfiles.example.com",
                "files.example.com@evil.com", "127.0.0.1", "evil.com",
            ]
            for host in hosts {
                let reply = try await EdgeFixture.send(
                    port: api.port, .GET, "/\(key)", host: host, headers: [("X-Forwarded-Host", Self.domain)])
                #expect(reply.status != .ok && !reply.text.contains("file b"), "\(host): \(reply)")
                // The API is still the API's on those names.
                let date = try await EdgeFixture.send(port: api.port, .GET, "/1.1/date", host: host)
                #expect(date.status == .ok, "\(host): \(date)")
            }
            // The fully qualified name (a trailing dot) is the same host: the file domain's.
            let qualified = try await EdgeFixture.send(port: api.port, .GET, "/\(key)", host: Self.domain + ".")
            #expect(qualified.status == .ok && qualified.text == "file b", "\(qualified)")
            let date = try await EdgeFixture.send(port: api.port, .GET, "/1.1/date", host: Self.domain + ".")
            #expect(date.status == .notFound, "\(date)")
        }
    }

    /// A key no `_File` names is not served, even when the store holds bytes under it (a
    /// stray object, or another app's); a file deleted stops being served on the domain.
    @Test func bytesWithoutAFileAndDeletedFilesAreNotServed() async throws {
        try await FileDomainTests.run { api, directory in
            try "stray bytes".write(toFile: directory + "/files/stray.txt", atomically: true, encoding: .utf8)
            Self.expectRefused(try await EdgeFixture.send(port: api.port, .GET, "/stray.txt", host: Self.domain, headers: []), "stray")
            let file = try await FileFixture.upload(api, "c.txt", "file c")
            let key = try #require(file["key"]?.stringValue)
            #expect(try await api.delete("/1.1/files/\(try #require(file["objectId"]?.stringValue))", headers: Headers.master).status == .ok)
            Self.expectRefused(try await EdgeFixture.send(port: api.port, .GET, "/\(key)", host: Self.domain, headers: []), "deleted")
        }
    }

    /// A file domain that is also the API's or the web pages' host name would take their
    /// requests: the host refuses to start with it.
    @Test func aFileDomainSharingTheAPIsHostNameIsRefused() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (options, taken) in [
            (["--public-url", "https://API.example.com", "--files-url", "https://api.example.com"], "--public-url"),
            (["--engine-web-host", "www.example.com", "--files-url", "https://stg-www.example.com"], "--engine-web-host"),
            (["--files-url", "https://files.example.com/sub"], "no path"),
        ] {
            let run = try await CLI.functionhost(["serve", "--data-dir", directory, "--port", "0"] + options, port: 0)
            #expect(run.status != 0 && run.errors.contains(taken), "\(options): \(run)")
        }
    }
}
