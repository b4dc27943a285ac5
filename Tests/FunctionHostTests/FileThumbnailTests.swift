import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
import Thumbnails

@testable import FunctionHost

/// Thumbnails at file URLs (`?imageView2/...`), through the real upload and download routes,
/// decoded with libvips: sizes, types, caching headers, the cache on disk, and what a client
/// can't make the server do.
@Suite struct FileThumbnailTests {
    /// Uploads `bytes` as `name` with the client key; the file's URL path.
    static func upload(_ api: API, _ name: String, _ bytes: [UInt8], type: String) async throws -> String {
        let reply = try await FileFixture.exchange(
            api, .post, "/1.1/files/\(name)", headers: FileFixture.typed(type), body: bytes)
        #expect(reply.status == .created, "upload \(name): \(reply.status)")
        let json = try JSONValue(parsing: reply.body)
        return try FileFixture.path(json["url"])
    }

    static func get(_ api: API, _ uri: String, headers: HTTPFields = Headers.none) async throws -> (
        status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]
    ) {
        try await FileFixture.exchange(api, .get, uri, headers: headers)
    }

    /// The thumbnails kept under `<data>/thumbnails`.
    static func kept(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/thumbnails").filter { $0 != ".incoming" }
    }

    @Test func theSDKsThumbnailURLsAnswerResizedImages() async throws {
        try await FileFixture.run { api, directory in
            let png = try await Self.upload(api, "photo.png", try ImageFixture.encoded(width: 640, height: 480, format: .png), type: "image/png")
            let jpeg = try await Self.upload(api, "photo.jpg", try ImageFixture.encoded(width: 480, height: 640, format: .jpg), type: "image/jpeg")
            let cases: [(path: String, query: String, type: String, width: Int, height: Int)] = [
                // The JS SDK's `thumbnailURL(100, 100)` and `thumbnailURL(100, 100, 80, false, 'jpg')`.
                (png, "imageView/2/w/100/h/100/q/100/format/png", "image/png", 100, 75),
                (png, "imageView/1/w/100/h/100/q/80/format/jpg", "image/jpeg", 100, 100),
                // The Objective-C SDK's `getThumbnail:YES width:100 height:100`: the original's format.
                (jpeg, "imageView/2/w/100/h/100", "image/jpeg", 75, 100),
                (jpeg, "imageView2/0/w/200/h/30", "image/jpeg", 30, 40),
                (jpeg, "imageView2/3/w/100/h/100/format/webp", "image/webp", 100, 133),
                (jpeg, "imageView2/4/w/100/format/gif", "image/gif", 100, 133),
                (jpeg, "imageView2/5/w/100/h/50/format/png/interlace/1", "image/png", 50, 100),
            ]
            for item in cases {
                let reply = try await Self.get(api, "\(item.path)?\(item.query)")
                #expect(reply.status == .ok, "\(item.query): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.headers[.contentType] == item.type, "\(item.query)")
                #expect(reply.headers[.contentLength] == String(reply.body.count), "\(item.query)")
                #expect(reply.headers[.cacheControl] == FileDownloads.cacheControl, "\(item.query)")
                #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                let decoded = try ImageFixture.decode(reply.body)
                #expect(decoded.width == item.width && decoded.height == item.height, "\(item.query): \(decoded)")
                #expect(decoded.format?.mimeType == item.type, "\(item.query): \(decoded)")
            }
            #expect(try Self.kept(directory).count == cases.count)
            // Other queries answer the original, as before.
            let original = try await Self.get(api, "\(png)?v=2")
            #expect(try original.status == .ok && ImageFixture.decode(original.body).width == 640)
        }
    }

    @Test func aThumbnailIsCachedWithItsOwnValidator() async throws {
        try await FileFixture.run { api, directory in
            let path = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 300, height: 300, format: .png), type: "image/png")
            let uri = "\(path)?imageView2/1/w/64/h/32"
            let first = try await Self.get(api, uri)
            #expect(first.status == .ok)
            let etag = try #require(first.headers[.eTag])
            let original = try await Self.get(api, path)
            #expect(original.headers[.eTag] != etag && etag.hasPrefix("\"") && etag.hasSuffix("\""))
            // Kept: the second answer is the same bytes, from the cache.
            let kept = try Self.kept(directory)
            #expect(kept.count == 1)
            let second = try await Self.get(api, uri)
            #expect(second.body == first.body && second.headers[.eTag] == etag)
            #expect(try Self.kept(directory) == kept)
            // The same parameters spelled otherwise are the same thumbnail.
            let respelled = try await Self.get(api, "\(path)?imageView2/1/h/32/w/64/q/75/ignore-error/0")
            #expect(respelled.headers[.eTag] == etag && respelled.body == first.body)
            let notModified = try await Self.get(api, uri, headers: FileFixture.adding("If-None-Match", etag))
            #expect(notModified.status == .notModified && notModified.body.isEmpty)
            let head = try await FileFixture.exchange(api, .head, uri)
            #expect(head.status == .ok && head.body.isEmpty && head.headers[.contentLength] == String(first.body.count))
            #expect(head.headers[.contentType] == "image/png")
            // A thumbnail answers no ranges: the whole thumbnail.
            let ranged = try await Self.get(api, uri, headers: FileFixture.adding("Range", "bytes=0-3"))
            #expect(ranged.status == .ok && ranged.body == first.body)
        }
    }

    @Test func badParametersAndNonImagesGetQiniusError() async throws {
        try await FileFixture.run { api, directory in
            let image = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 50, height: 50, format: .png), type: "image/png")
            let text = try await Self.upload(api, "notes.txt", Array("plain words".utf8), type: "text/plain")
            // An HTML page uploaded as a PNG: never decoded, never answered as a page.
            let page = try await Self.upload(api, "page.png", Array("<html><script>alert(1)</script></html>".utf8), type: "image/png")
            let bomb = try await Self.upload(api, "bomb.png", ImageFixture.pngClaiming(width: 50_000, height: 50_000), type: "image/png")
            let wide = try await Self.upload(api, "wide.png", try ImageFixture.encoded(width: 10_000, height: 2, format: .png), type: "image/png")
            let cases: [(uri: String, words: String)] = [
                ("\(image)?imageView2/9/w/10", "modes 0 to 5"),
                ("\(image)?imageView2/2/w/0", "w must be"),
                ("\(image)?imageView2/2/w/99999999999", "w must be"),
                ("\(image)?imageView2/2/h/-5", "h must be"),
                ("\(image)?imageView2/2/q/1000", "q must be"),
                ("\(image)?imageView2/2/format/bmp", "format must be"),
                ("\(image)?imageView2/2/format/%3Cscript%3E", "format must be"),
                ("\(image)?imageView2/2/w/10/w/10", "twice"),
                ("\(image)?imageView2/2/path/..%2F..%2Fetc%2Fpasswd", "takes w, h"),
                ("\(image)?imageView2/2/" + String(repeating: "w/1/", count: 100), "longer than"),
                // Never enlarged, but a 10000-pixel original kept whole is past the largest thumbnail.
                ("\(wide)?imageView2/2/format/png", "would be 10000×2"),
                ("\(text)?imageView2/2/w/10", "not an image"),
                ("\(page)?imageView2/2/w/10", "not an image"),
                ("\(bomb)?imageView2/2/w/10", "50000×50000"),
            ]
            for item in cases {
                let reply = try await Self.get(api, item.uri)
                let json = try? JSONValue(parsing: reply.body)
                #expect(reply.status == .badRequest, "\(item.uri): \(reply.status)")
                #expect(json?["code"] == 400, "\(item.uri)")
                #expect(json?["error"]?.stringValue?.contains(item.words) == true, "\(item.uri): \(String(describing: json))")
                #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true, "\(item.uri)")
                #expect(reply.headers[.cacheControl] == "no-store", "\(item.uri)")
            }
            // `ignore-error/1` asks for the original instead of an error.
            let fallback = try await Self.get(api, "\(text)?imageView2/2/w/10/ignore-error/1")
            #expect(fallback.status == .ok && String(decoding: fallback.body, as: UTF8.self) == "plain words")
            #expect(try Self.kept(directory).isEmpty)
        }
    }

    @Test func keysThatAreNoFileAnswer404() async throws {
        try await FileFixture.run { api, directory in
            try Data("secret".utf8).write(to: URL(fileURLWithPath: directory + "/outside.png"))
            for key in ["..%2Foutside.png", "..%2F..%2Fetc%2Fpasswd", ".incoming", "%2Fetc%2Fpasswd", "missing.png"] {
                let reply = try await Self.get(api, "/files/\(key)?imageView2/2/w/10")
                #expect(reply.status == .notFound, "\(key): \(reply.status)")
            }
        }
    }

    @Test func pastTheSlotsARequestWaitsThenIsRefused() async throws {
        let refusing = ThumbnailGate(slots: 1, maxWait: .zero)
        try await FileFixture.run(configure: { $0.thumbnails.gate = refusing }) { api, _ in
            let path = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 80, height: 80, format: .png), type: "image/png")
            // The one slot is taken (as by a long thumbnail): the next request is refused at once.
            #expect(await refusing.enter(client: "other"))
            let busy = try await Self.get(api, "\(path)?imageView2/2/w/10")
            let json = try? JSONValue(parsing: busy.body)
            #expect(busy.status == .serviceUnavailable && json?["code"] == 503, "\(busy.status) \(String(describing: json))")
            #expect(busy.headers[.cacheControl] == "no-store")
            refusing.leave(client: "other")
            #expect(try await Self.get(api, "\(path)?imageView2/2/w/10").status == .ok)
        }
        let waiting = ThumbnailGate(slots: 1, maxWait: .seconds(600))
        try await FileFixture.run(configure: { $0.thumbnails.gate = waiting }) { api, _ in
            let path = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 80, height: 80, format: .png), type: "image/png")
            #expect(await waiting.enter(client: "other"))
            let request = Task { try await Self.get(api, "\(path)?imageView2/2/w/10") }
            #expect(await waiting.untilWaiting(1, within: .seconds(60)), "no request waited for the slot")
            waiting.leave(client: "other")
            let reply = try await request.value
            #expect(try reply.status == .ok && ImageFixture.decode(reply.body).width == 10)
            #expect(waiting.busySlots == 0)
        }
    }

    /// Two slots, and a client already making one thumbnail (its slot held here, as by a long
    /// one): its next request waits for its own slot though the other is free, and another
    /// client's request is made at once in that free slot. Clients are told apart by the
    /// address the rate limits key on (`X-Forwarded-For` from the trusted proxy the test plays).
    @Test func aClientGetsAtMostItsShareOfTheSlots() async throws {
        let gate = ThumbnailGate(slots: 2, maxWait: .seconds(600))
        try await FileFixture.run(
            transport: .socket, configure: { $0.thumbnails.gate = gate; $0.trustedProxies = TrustedProxies(list: "127.0.0.1")! }
        ) { api, _ in
            let path = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 80, height: 80, format: .png), type: "image/png")
            #expect(await gate.enter(client: "203.0.113.1"))
            // On a connection of its own (the test client's one connection carries one request at a time).
            let second = Task {
                try await HTTPClient.withHTTPClient { client in
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(api.port)\(path)?imageView2/2/w/10")
                    request.headers.add(name: "X-Forwarded-For", value: "203.0.113.1")
                    let response = try await client.execute(request, timeout: .seconds(600))
                    return (response.status.code, Array(try await response.body.collect(upTo: 1 << 20).readableBytesView))
                }
            }
            #expect(await gate.untilWaiting(1, within: .seconds(60)), "the client's second request did not wait")
            #expect(gate.busySlots == 1)
            let other = try await Self.get(api, "\(path)?imageView2/2/w/12", headers: FileFixture.adding("X-Forwarded-For", "198.51.100.7"))
            #expect(try other.status == .ok && ImageFixture.decode(other.body).width == 12)
            gate.leave(client: "203.0.113.1")
            let (status, body) = try await second.value
            #expect(try status == 200 && ImageFixture.decode(body).width == 10)
            #expect(gate.busySlots == 0)
        }
    }

    /// `If-None-Match` as RFC 9110 § 13.1.2 reads it, on a thumbnail and on the file itself (one
    /// function): a list matches when any of its tags does, `W/` is compared weakly, `*` matches
    /// any; a 304 has no body, and anything else gets the whole answer.
    @Test func ifNoneMatchTakesListsWeakTagsAndAStar() async throws {
        try await FileFixture.run { api, _ in
            let path = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 120, height: 90, format: .png), type: "image/png")
            for uri in ["\(path)?imageView2/2/w/40", path] {
                let first = try await Self.get(api, uri)
                let etag = try #require(first.headers[.eTag])
                #expect(first.status == .ok && !first.body.isEmpty)
                let matching = [
                    etag, "W/\(etag)", "*", "\"other\", \(etag)", "\"x,y\", W/\(etag)", "  \"a\" ,\t\(etag) , \"b\"",
                ]
                for value in matching {
                    let reply = try await Self.get(api, uri, headers: FileFixture.adding("If-None-Match", value))
                    #expect(reply.status == .notModified && reply.body.isEmpty, "\(uri) If-None-Match: \(value): \(reply.status)")
                    #expect(reply.headers[.eTag] == etag, "\(uri) \(value)")
                }
                let stripped = String(etag.dropFirst().dropLast())
                let other = [
                    "\"other\"", "W/\"other\", \"more\"", stripped, "\"\(stripped)", "W/\(stripped)", "\"\(stripped)x\"",
                    // A list is read up to its first entry that is no tag.
                    "junk, \(etag)", "",
                ]
                for value in other {
                    let reply = try await Self.get(api, uri, headers: FileFixture.adding("If-None-Match", value))
                    #expect(reply.status == .ok && reply.body == first.body, "\(uri) If-None-Match: \(value): \(reply.status)")
                }
                // Two field lines are one list.
                var twoLines = Headers.none
                twoLines.append(HTTPField(name: .ifNoneMatch, value: "\"other\""))
                twoLines.append(HTTPField(name: .ifNoneMatch, value: etag))
                let reply = try await Self.get(api, uri, headers: twoLines)
                #expect(reply.status == .notModified && reply.body.isEmpty, "\(uri) two lines: \(reply.status)")
            }
        }
    }

    /// Many different thumbnails at once past one slot: each is made or refused with 503, none
    /// fails otherwise, and the slot is free after.
    @Test func aBurstPastTheSlotsIsMadeOrRefused() async throws {
        let gate = ThumbnailGate(slots: 1, maxWait: .zero)
        try await FileFixture.run(configure: { $0.thumbnails.gate = gate }) { api, _ in
            let path = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 1200, height: 900, format: .png), type: "image/png")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for width in 1...12 {
                    group.addTask { try await Self.get(api, "\(path)?imageView2/2/w/\(width * 10)").status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .ok || $0 == .serviceUnavailable }, "\(statuses)")
            #expect(statuses.contains(.ok))
            #expect(gate.busySlots == 0)
        }
    }

    @Test func theCacheStaysWithinItsSize() async throws {
        try await FileFixture.run(configure: { $0.thumbnails.cacheBytes = 3000 }) { api, directory in
            let path = try await Self.upload(api, "a.png", try ImageFixture.encoded(width: 400, height: 400, format: .png), type: "image/png")
            for width in stride(from: 40, through: 200, by: 20) {
                let reply = try await Self.get(api, "\(path)?imageView2/2/w/\(width)")
                #expect(try reply.status == .ok && ImageFixture.decode(reply.body).width == width)
            }
            let sizes = try Self.kept(directory).map {
                try FileManager.default.attributesOfItem(atPath: directory + "/thumbnails/" + $0)[.size] as? Int ?? 0
            }
            #expect(!sizes.isEmpty && sizes.reduce(0, +) <= 3000, "\(sizes)")
        }
    }
}
