import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import JSON
import NIOCore
import NIOHTTP1
import S3Storage
import TestSupport
import Testing
import Thumbnails

@testable import FunctionHost

/// Files kept in an S3-compatible bucket (moto's server, checking every signature), through the
/// real routes: two hosts on one database share them, ranges and deletes reach the bucket,
/// `--files-redirect` hands out presigned URLs (a store that fails: `FileS3FailureTests`).
@Suite struct FileS3Tests {
    /// Runs a host whose files are in `server`'s bucket (or `settings`), on a fresh data directory.
    static func host(
        _ server: S3TestServer, settings: S3Settings? = nil, redirects: Bool = false, _ body: @Sendable (API, String) async throws -> Void
    ) async throws {
        let s3 = try settings ?? server.settings(prefix: "app/")
        try await FileFixture.run(configure: {
            $0.s3Files = s3
            $0.filesRedirect = redirects
        }) { api, directory in
            try await body(api, directory)
        }
    }

    @Test func aFileUploadedThroughOneHostIsServedByAnother() async throws {
        try await S3TestServer.run { server in
            let settings = try server.settings(prefix: "app/")
            let directory = try TestServer.makeDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try await TestServer.run(dataDirectory: directory, configure: { $0.s3Files = settings }) { a in
                try await TestServer.run(dataDirectory: directory, configure: { $0.s3Files = settings }) { b in
                    let file = try await FileFixture.upload(a, "notes.txt", "kept in the bucket")
                    let key = try #require(file["key"]?.stringValue)
                    #expect(file["metaData"]?["_checksum"] == .string(MD5.hex("kept in the bucket")))
                    let got = try await FileFixture.exchange(b, .get, try FileFixture.path(file["url"]))
                    #expect(got.status == .ok)
                    #expect(String(decoding: got.body, as: UTF8.self) == "kept in the bucket")
                    #expect(got.headers[.eTag] == "\"\(MD5.hex("kept in the bucket"))\"")
                    // In the bucket, under the prefix; nothing on either host's disk.
                    let store = try server.store(prefix: "app/")
                    #expect(try await store.size(ofKey: key) == 18)
                    #expect(!FileManager.default.fileExists(atPath: directory + "/files/" + key))
                }
            }
        }
    }

    /// The SDKs' token upload lands in the bucket; a key the bucket already holds (an object
    /// no `_File` names) is refused, never overwritten.
    @Test func aTokenUploadGoesToTheBucketAndAKeyItHoldsIsRefused() async throws {
        try await S3TestServer.run { server in
            try await Self.host(server) { api, _ in
                let issued = try await api.post("/1.1/fileTokens", FileWireTests.tokenBody("t.txt", size: 9))
                let uploadPath = try FileFixture.path(issued["upload_url"])
                let put = try await api.send(.put, uploadPath, headers: FileFixture.typed("text/plain", Headers.none), body: "by token!")
                #expect(put.status == .ok, "\(put)")
                #expect(try await api.post("/1.1/fileCallback", ["token": issued["token"] ?? .null, "result": true]).status == .ok)
                #expect(try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none).text == "by token!")
                let store = try server.store(prefix: "app/")
                #expect(try await store.size(ofKey: try #require(issued["key"]?.stringValue)) == 9)

                let stray = try await store.beginUpload(key: "stray.txt")
                try await stray.append(ByteBuffer(string: "someone else's"))
                _ = try await stray.finish()
                let taken = try await api.post(
                    "/1.1/fileTokens", headers: Headers.master, FileWireTests.tokenBody("s.txt", extra: ["key": "stray.txt"]))
                expectError(taken, code: 137)
                #expect(try await store.size(ofKey: "stray.txt") == 14)
            }
        }
    }

    @Test func rangesAreServedFromTheBucket() async throws {
        try await S3TestServer.run { server in
            try await Self.host(server) { api, _ in
                let file = try await FileFixture.upload(api, "digits.txt", FileFixture.digits)
                let path = try FileFixture.path(file["url"])
                for (range, expected, status) in [
                    ("bytes=2-5", "2345", HTTPResponse.Status.partialContent), ("bytes=-3", "789", .partialContent),
                    ("bytes=7-", "789", .partialContent), ("bytes=8-100", "89", .partialContent), ("bytes=0-0,2-3", "0123456789", .ok),
                ] {
                    let got = try await FileFixture.exchange(api, .get, path, headers: FileFixture.adding("Range", range))
                    #expect(got.status == status, "\(range)")
                    #expect(String(decoding: got.body, as: UTF8.self) == expected, "\(range)")
                }
                // Past the end: 416, with the size, and no request for bytes that aren't there.
                let past = try await FileFixture.exchange(api, .get, path, headers: FileFixture.adding("Range", "bytes=10-20"))
                #expect(past.status == .rangeNotSatisfiable)
                #expect(past.headers[.contentRange] == "bytes */10")
                let head = try await FileFixture.exchange(api, .head, path)
                #expect(head.status == .ok && head.body.isEmpty && head.headers[.contentLength] == "10")
            }
        }
    }

    @Test func aLargeFileGoesUpInPartsAndComesBackWhole() async throws {
        try await S3TestServer.run { server in
            var settings = try server.settings(prefix: "app/")
            settings.partSize = 5 * 1024 * 1024
            try await Self.host(server, settings: settings) { api, _ in
                // Over two parts, through the streamed upload route.
                let size = 11 * 1024 * 1024 + 5
                let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 16) }
                let reply = try await FileFixture.exchange(
                    api, .post, "/1.1/files/big.bin", headers: FileFixture.typed("application/octet-stream"), body: bytes)
                #expect(reply.status == .created)
                let file = try JSONValue(parsing: reply.body)
                #expect(file["metaData"]?["size"] == .int(Int64(size)))
                let key = try #require(file["key"]?.stringValue)
                let store = try server.store(prefix: "app/")
                #expect(try await store.size(ofKey: key) == size)
                let got = try await FileFixture.exchange(api, .get, try FileFixture.path(file["url"]))
                #expect(got.status == .ok)
                #expect(got.body == bytes)
                let tail = try await FileFixture.exchange(
                    api, .get, try FileFixture.path(file["url"]), headers: FileFixture.adding("Range", "bytes=-6"))
                #expect(tail.body == Array(bytes.suffix(6)))
            }
        }
    }

    @Test func deletingAFileDeletesItsObject() async throws {
        try await S3TestServer.run { server in
            try await Self.host(server) { api, _ in
                let file = try await FileFixture.upload(api, "gone.txt", "soon gone")
                let key = try #require(file["key"]?.stringValue)
                let id = try #require(file["objectId"]?.stringValue)
                let store = try server.store(prefix: "app/")
                #expect(try await store.size(ofKey: key) == 9)
                #expect(try await api.delete("/1.1/files/\(id)", headers: Headers.master).status == .ok)
                #expect(try await store.size(ofKey: key) == nil)
                #expect(try await FileFixture.exchange(api, .get, try FileFixture.path(file["url"])).status == .notFound)
            }
        }
    }

    @Test func aRedirectHandsOutAPresignedURLThatServesTheBytes() async throws {
        // moto checks no presigned signature: the signing itself is checked against AWS's own
        // example (SigV4Tests); here, that the URL names the object and the bytes come back.
        try await S3TestServer.run(auth: false) { server in
            try await Self.host(server, redirects: true) { api, _ in
                let file = try await FileFixture.upload(api, "away.txt", "served by the bucket")
                let got = try await FileFixture.exchange(api, .get, try FileFixture.path(file["url"]))
                #expect(got.status == .found)
                #expect(got.headers[.cacheControl] == "no-store")
                let location = try #require(got.headers[.location])
                #expect(location.hasPrefix("\(server.endpoint)/files/app/"))
                #expect(location.contains("X-Amz-Expires=300") && location.contains("X-Amz-Signature="))
                let followed = try await HTTPClient.shared.execute(HTTPClientRequest(url: location), timeout: .seconds(30))
                #expect(followed.status == .ok)
                let bytes = try await followed.body.collect(upTo: 1024)
                #expect(String(buffer: bytes) == "served by the bucket")
                #expect(followed.headers.first(name: "Content-Type") == "text/plain")
                #expect(followed.headers.first(name: "Content-Disposition") == nil)
                // A type a browser would run is an attachment at the bucket too.
                let page = try await FileFixture.upload(api, "page.html", "<script>1</script>", type: "text/html")
                let pageRedirect = try await FileFixture.exchange(api, .get, try FileFixture.path(page["url"]))
                let pageLocation = try #require(pageRedirect.headers[.location])
                let pageAnswer = try await HTTPClient.shared.execute(HTTPClientRequest(url: pageLocation), timeout: .seconds(30))
                #expect(pageAnswer.status == .ok)
                #expect(pageAnswer.headers.first(name: "Content-Type") == "text/html")
                #expect(pageAnswer.headers.first(name: "Content-Disposition")?.hasPrefix("attachment") == true)
                // Thumbnails are still the host's to make: a query is never redirected.
                let thumbnail = try await FileFixture.exchange(api, .get, try FileFixture.path(file["url"]) + "?imageView2/2/w/10")
                #expect(thumbnail.status != .found)
            }
        }
    }

    @Test func aThumbnailIsMadeOfAnOriginalInTheBucket() async throws {
        try await S3TestServer.run { server in
            try await Self.host(server) { api, directory in
                let png = try ImageFixture.encoded(width: 64, height: 48, format: .png)
                let reply = try await FileFixture.exchange(
                    api, .post, "/1.1/files/photo.png", headers: FileFixture.typed("image/png"), body: png)
                let path = try FileFixture.path(try JSONValue(parsing: reply.body)["url"])
                let got = try await FileFixture.exchange(api, .get, path + "?imageView2/2/w/16")
                #expect(got.status == .ok)
                let decoded = try ImageFixture.decode(got.body)
                #expect(decoded.width == 16)
                // The fetched original was a temporary file, gone once the thumbnail was made.
                let incoming = try FileManager.default.contentsOfDirectory(atPath: directory + "/thumbnails/.incoming")
                #expect(incoming.isEmpty, "\(incoming)")
            }
        }
    }

    /// Keys that are not the host's own never reach the bucket: not found, whatever they hold.
    @Test func keysThatAreNotOursAreNotFound() async throws {
        try await S3TestServer.run { server in
            try await Self.host(server) { api, _ in
                _ = try await FileFixture.upload(api, "real.txt", "real")
                for key in ["..%2F..%2Fetc%2Fpasswd", "%2E%2E", "a%2Fb", ".hidden", String(repeating: "k", count: 5000)] {
                    let got = try await FileFixture.exchange(api, .get, "/files/\(key)")
                    #expect(got.status == .notFound, "\(key.prefix(40))")
                    #expect((try? JSONValue(parsing: got.body))?["code"] == 404, "\(key.prefix(40))")
                }
            }
        }
    }
}
