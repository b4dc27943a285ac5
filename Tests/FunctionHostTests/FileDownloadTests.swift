import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import Hooks
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// Serving files at their URLs: headers, ranges, validators, forged keys, staging's own files.
@Suite struct FileDownloadTests {
    @Test func aDownloadDescribesItself() async throws {
        try await FileFixture.run { api, _ in
            let file = try await FileFixture.upload(api, "digits.txt", FileFixture.digits, type: "text/plain; charset=utf-8")
            let key = try #require(file["key"]?.stringValue)
            let etag = "\"\(MD5.hex(FileFixture.digits))\""
            for path in ["/files/\(key)", "/files/\(key)/any-name.txt"] {
                let whole = try await api.get(path, headers: Headers.none)
                #expect(whole.status == .ok && whole.text == FileFixture.digits, "\(path): \(whole)")
                #expect(whole.header("Content-Type") == "text/plain; charset=utf-8")
                #expect(whole.header("Content-Length") == "10")
                #expect(whole.header("ETag") == etag)
                #expect(whole.header("Accept-Ranges") == "bytes")
                #expect(whole.header("Cache-Control")?.isEmpty == false)
            }
            let head = try await api.send(.head, "/files/\(key)", headers: Headers.none)
            #expect(head.status == .ok && head.text.isEmpty, "\(head)")
            #expect(head.header("Content-Length") == "10")
            #expect(head.header("ETag") == etag)
            #expect(head.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(head.header("Accept-Ranges") == "bytes")
            // Downloads need no keys, and wrong keys don't stop them either.
            let wrongKeys = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "wrong")])
            #expect(try await api.get("/files/\(key)", headers: wrongKeys).text == FileFixture.digits)
        }
    }

    @Test func byteRangesServeTheAskedPart() async throws {
        try await FileFixture.run { api, _ in
            let file = try await FileFixture.upload(api, "digits.txt", FileFixture.digits)
            let path = try FileFixture.path(file["url"])
            let cases: [(range: String, body: String, contentRange: String)] = [
                ("bytes=2-4", "234", "bytes 2-4/10"),
                ("bytes=-3", "789", "bytes 7-9/10"),
                ("bytes=5-", "56789", "bytes 5-9/10"),
                ("bytes=0-0", "0", "bytes 0-0/10"),
                ("bytes=9-9", "9", "bytes 9-9/10"),
                ("bytes=4-100", "456789", "bytes 4-9/10"),
                ("bytes=-20", "0123456789", "bytes 0-9/10"),
            ]
            for item in cases {
                let reply = try await api.get(path, headers: FileFixture.adding("Range", item.range))
                #expect(reply.status == .partialContent, "\(item.range): \(reply)")
                #expect(reply.text == item.body, "\(item.range)")
                #expect(reply.header("Content-Range") == item.contentRange, "\(item.range)")
                #expect(reply.header("Content-Length") == String(item.body.utf8.count), "\(item.range)")
            }
            for range in ["bytes=10-", "bytes=99-120", "bytes=-0"] {
                let reply = try await api.get(path, headers: FileFixture.adding("Range", range))
                #expect(reply.status == .rangeNotSatisfiable, "\(range): \(reply)")
                #expect(reply.header("Content-Range") == "bytes */10", "\(range)")
                #expect(reply.text.isEmpty, "\(range)")
            }
            // Ranges this server doesn't take are answered with the whole file.
            for range in ["bytes=1-2,4-5", "items=0-3", "bytes=5-2"] {
                let reply = try await api.get(path, headers: FileFixture.adding("Range", range))
                #expect(reply.status == .ok && reply.text == FileFixture.digits, "\(range): \(reply)")
            }
            let head = try await api.send(.head, path, headers: FileFixture.adding("Range", "bytes=2-4"))
            #expect(head.status == .partialContent && head.text.isEmpty, "\(head)")
            #expect(head.header("Content-Range") == "bytes 2-4/10")
            #expect(head.header("Content-Length") == "3")
        }
    }

    @Test func validatorsAnswer304AndGuardRanges() async throws {
        try await FileFixture.run { api, _ in
            let file = try await FileFixture.upload(api, "digits.txt", FileFixture.digits)
            let path = try FileFixture.path(file["url"])
            let etag = try #require(try await api.get(path, headers: Headers.none).header("ETag"))
            #expect(etag == "\"\(MD5.hex(FileFixture.digits))\"")

            let cached = try await api.get(path, headers: FileFixture.adding("If-None-Match", etag))
            #expect(cached.status == .notModified && cached.text.isEmpty, "\(cached)")
            #expect(cached.header("ETag") == etag)
            #expect(try await api.get(path, headers: FileFixture.adding("If-None-Match", "*")).status == .notModified)
            let stale = try await api.get(path, headers: FileFixture.adding("If-None-Match", "\"0000\""))
            #expect(stale.status == .ok && stale.text == FileFixture.digits)

            // If-Range: the range only for the version it was asked of.
            var headers = FileFixture.adding("Range", "bytes=2-4")
            headers[.ifRange] = etag
            let same = try await api.get(path, headers: headers)
            #expect(same.status == .partialContent && same.text == "234", "\(same)")
            headers[.ifRange] = "\"0000\""
            let changed = try await api.get(path, headers: headers)
            #expect(changed.status == .ok && changed.text == FileFixture.digits, "\(changed)")
        }
    }

    @Test func unknownAndForgedKeysAre404() async throws {
        try await FileFixture.run { api, _ in
            let external = try await api.post("/1.1/files", ["name": "e.png", "url": "https://example.com/e.png"])
            #expect(external.status == .created)
            _ = try await FileFixture.upload(api, "a.txt", "a")
            for key in ["nosuchkey", "nosuchkey.txt", ".incoming", "..", "%2E%2E%2Fdata.sqlite", "..%2F..%2Fetc%2Fpasswd"] {
                let reply = try await api.get("/files/\(key)", headers: Headers.none)
                #expect(reply.status == .notFound, "\(key): \(reply)")
            }
            expectError(try await api.get("/files/nosuchkey", headers: Headers.none), code: 404, status: .notFound)
            #expect(try await api.send(.head, "/files/nosuchkey", headers: Headers.none).status == .notFound)
        }
    }

    @Test func stagingFilesWithADatabaseOfTheirOwnAreServed() async throws {
        let staging = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: staging) }
        try await FileFixture.run(configure: { $0.stagingDataDirectory = staging }) { api, _ in
            let file = try await FileFixture.upload(api, "staged.txt", "staged", headers: Headers.staging)
            let id = try #require(file["objectId"]?.stringValue)
            // The object lives with staging's data...
            #expect(try await api.get("/1.1/files/\(id)", headers: Headers.staging).status == .ok)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            // ...and its URL, which carries no environment, still serves the bytes.
            let download = try await api.get(try FileFixture.path(file["url"]), headers: Headers.none)
            #expect(download.status == .ok && download.text == "staged", "\(download)")

            // The token flow keeps the environment the token was asked in.
            let issued = try await api.post("/1.1/fileTokens", headers: Headers.staging, ["name": "t.txt"])
            let tokenId = try #require(issued["objectId"]?.stringValue)
            let put = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "tok")
            #expect(put.status == .ok, "\(put)")
            #expect(try await api.get("/1.1/files/\(tokenId)", headers: Headers.staging).status == .ok)
            let tokenDownload = try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none)
            #expect(tokenDownload.status == .ok && tokenDownload.text == "tok", "\(tokenDownload)")
        }
    }
}
