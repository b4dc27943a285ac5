import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing
import Thumbnails

@testable import FunctionHost

/// The thumbnails' second attack review, through the real routes: a reused key, a file deleted
/// while its thumbnail waits, and hostile originals answered with Qiniu's 400.
@Suite struct FileThumbnailAttackTests {
    /// Stores `bytes` under the key the master key chose (`fileTokens` `key`, then the upload's
    /// PUT): the file's id.
    static func store(_ api: API, key: String, _ bytes: [UInt8]) async throws -> String {
        let issued = try await api.post(
            "/1.1/fileTokens", headers: Headers.master,
            ["name": "a.png", "key": .string(key), "mime_type": "image/png", "metaData": ["size": .int(Int64(bytes.count))]])
        #expect(issued.status == .ok, "\(issued)")
        let put = try await FileFixture.exchange(
            api, .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("image/png", Headers.none), body: bytes)
        #expect(put.status == .ok, "\(put.status)")
        return try #require(issued.objectId)
    }

    @Test func attackAReusedKeyNeverServesTheOldFilesThumbnail() async throws {
        try await FileFixture.run { api, directory in
            let uri = "/files/reuse.png?imageView2/2/w/9999"
            let first = try await Self.store(api, key: "reuse.png", try ImageFixture.encoded(width: 50, height: 50, format: .png))
            let old = try await FileThumbnailTests.get(api, uri)
            #expect(try old.status == .ok && ImageFixture.decode(old.body).width == 50)
            #expect(try await api.delete("/1.1/files/\(first)", headers: Headers.master).status == .ok)
            // The deleted file's thumbnail is never served.
            #expect(try await FileThumbnailTests.get(api, uri).status == .notFound)
            // Another file under the same key: its own thumbnail, under its own validator.
            _ = try await Self.store(api, key: "reuse.png", try ImageFixture.encoded(width: 100, height: 100, format: .png))
            let new = try await FileThumbnailTests.get(api, uri)
            #expect(try new.status == .ok && ImageFixture.decode(new.body).width == 100)
            #expect(new.headers[.eTag] != old.headers[.eTag])
            #expect(try FileThumbnailTests.kept(directory).count == 2)
        }
    }

    @Test func attackAFileDeletedWhileItsThumbnailWaitsAnswers404() async throws {
        let gate = ThumbnailGate(slots: 1, maxWait: .seconds(600))
        try await FileFixture.run(configure: { $0.thumbnails.gate = gate }) { api, _ in
            for query in ["imageView2/2/w/10", "imageView2/2/w/10/ignore-error/1"] {
                let reply = try await FileFixture.exchange(
                    api, .post, "/1.1/files/race.png", headers: FileFixture.typed("image/png"),
                    body: try ImageFixture.encoded(width: 80, height: 80, format: .png))
                let json = try JSONValue(parsing: reply.body)
                let id = try #require(json["objectId"]?.stringValue)
                let path = try FileFixture.path(json["url"])
                // The one slot is taken; the request waits for it, and the file is deleted meanwhile.
                #expect(await gate.enter(client: "holder"))
                let request = Task { try await FileThumbnailTests.get(api, "\(path)?\(query)") }
                #expect(await gate.untilWaiting(1, within: .seconds(60)), "no request waited for the slot")
                #expect(try await api.delete("/1.1/files/\(id)", headers: Headers.master).status == .ok)
                gate.leave(client: "holder")
                let answer = try await request.value
                let error = try? JSONValue(parsing: answer.body)
                #expect(answer.status == .notFound && error?["code"] == 404, "\(query): \(answer.status) \(String(describing: error))")
                #expect(gate.busySlots == 0)
            }
        }
    }

    @Test func attackHostileOriginalsAndLargeWholeOutputsAre400() async throws {
        try await FileFixture.run { api, directory in
            let bomb = try await FileThumbnailTests.upload(
                api, "bomb.png", HostileImages.pngWithTextBomb(chunks: 40, inflatedBytes: 1 << 20), type: "image/png")
            let pages = try await FileThumbnailTests.upload(api, "pages.tif", HostileImages.tiffWithPages(5000), type: "image/tiff")
            let large = try await FileThumbnailTests.upload(
                api, "large.png", try ImageFixture.encoded(width: 2100, height: 2100, format: .png), type: "image/png")
            let cases: [(uri: String, words: String)] = [
                ("\(bomb)?imageView2/2/w/10", "inflates to more than"),
                ("\(pages)?imageView2/2/w/10", "pages"),
                ("\(large)?imageView2/2/w/2100/format/webp", "would be 2100×2100"),
                ("\(large)?imageView2/0/w/9999/format/gif", "would be 2100×2100"),
                ("\(large)?imageView2/2/w/2100/interlace/1", "would be 2100×2100"),
            ]
            for item in cases {
                let reply = try await FileThumbnailTests.get(api, item.uri)
                let json = try? JSONValue(parsing: reply.body)
                #expect(reply.status == .badRequest && json?["code"] == 400, "\(item.uri): \(reply.status)")
                #expect(json?["error"]?.stringValue?.contains(item.words) == true, "\(item.uri): \(String(describing: json))")
                #expect(reply.headers[.cacheControl] == "no-store", "\(item.uri)")
                // `ignore-error/1`: the original instead.
                let original = try await FileThumbnailTests.get(api, item.uri + "/ignore-error/1")
                #expect(original.status == .ok && original.headers[.eTag]?.contains("imageView") == false, "\(item.uri)")
            }
            #expect(try FileThumbnailTests.kept(directory).isEmpty)
        }
    }
}
