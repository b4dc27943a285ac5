import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import Hooks
import HummingbirdTesting
import JSON
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// The size limit on every upload path, and `_File` as a class and as values in objects.
@Suite struct FileLimitTests {
    @Test func aFileOverTheLimitIsRefusedAndNothingIsKept() async throws {
        try await FileFixture.run(configure: { $0.maxFileSize = 10 }) { api, directory in
            let reply = try await api.send(.post, "/1.1/files/big.txt", headers: FileFixture.typed("text/plain"), body: "01234567890")
            expectError(reply, code: 130, status: .contentTooLarge)
            #expect(try await FileFixture.fileCount(api) == 0)
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            #expect(try FileFixture.incoming(directory).isEmpty)
            // Exactly the limit is fine.
            let fits = try await FileFixture.upload(api, "fits.txt", FileFixture.digits)
            #expect(fits["metaData"]?["size"] == 10)
            #expect(try await FileFixture.fileCount(api) == 1)
            #expect(try FileFixture.storedKeys(directory) == [try #require(fits["key"]?.stringValue)])
        }
    }

    @Test func aLargeAnnouncedBodyIsRefusedBeforeItIsReadAndTheConnectionStaysUsable() async throws {
        try await FileFixture.run(configure: { $0.maxFileSize = 10 }) { api, directory in
            let big = String(repeating: "b", count: 1024 * 1024)
            let reply = try await api.send(.post, "/1.1/files/big.txt", headers: FileFixture.typed("text/plain"), body: big)
            expectError(reply, code: 130, status: .contentTooLarge)
            // The test client's one connection carries on.
            #expect(try await FileFixture.upload(api, "small.txt", "small")["metaData"]?["size"] == 5)
            #expect(try await FileFixture.fileCount(api) == 1)
            #expect(try FileFixture.incoming(directory).isEmpty)
        }
    }

    @Test func aStreamedBodyWithoutLengthIsCutAtTheLimit() async throws {
        try await FileFixture.run(transport: .socket, configure: { $0.maxFileSize = 64 * 1024 }) { api, directory in
            // Chunked: the server learns the size only as the bytes arrive.
            func send(_ chunks: [ByteBuffer]) async throws -> (UInt, JSONValue?) {
                try await HTTPClient.withHTTPClient { client in
                    var request = FileFixture.streamedUpload(port: api.port, name: "stream.bin")
                    let stream = AsyncStream<ByteBuffer> { continuation in
                        for chunk in chunks { continuation.yield(chunk) }
                        continuation.finish()
                    }
                    request.body = .stream(stream, length: .unknown)
                    let response = try await client.execute(request, timeout: .seconds(60))
                    let body = try await response.body.collect(upTo: 1 << 20)
                    return (response.status.code, try? JSONValue(parsing: body.readableBytesView))
                }
            }
            let chunk = ByteBuffer(repeating: UInt8(ascii: "z"), count: 16 * 1024)
            // 4 MB in 16 KB chunks against a 64 KB limit.
            let (status, json) = try await send(Array(repeating: chunk, count: 256))
            #expect(status == 413, "\(String(describing: json))")
            #expect(json?["code"] == 130, "\(String(describing: json))")
            #expect(try await FileFixture.fileCount(api) == 0)
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            #expect(try FileFixture.incoming(directory).isEmpty)
            // Exactly the limit, chunked, is stored.
            let (fitStatus, fit) = try await send(Array(repeating: chunk, count: 4))
            #expect(fitStatus == 201, "\(String(describing: fit))")
            #expect(fit?["metaData"]?["size"] == 65536)
        }
    }

    @Test func aTokenUploadOverTheLimitIsRefusedAndNothingIsKept() async throws {
        try await FileFixture.run(configure: { $0.maxFileSize = 10 }) { api, directory in
            let issued = try await api.post("/1.1/fileTokens", ["name": "big.txt"])
            let id = try #require(issued["objectId"]?.stringValue)
            let put = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "01234567890")
            expectError(put, code: 130, status: .contentTooLarge)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none).status == .notFound)
            #expect(try await FileFixture.fileCount(api) == 0)
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            #expect(try FileFixture.incoming(directory).isEmpty)
        }
    }

    @Test func fileObjectsAreQueryableButOnlyTheFileAPIWritesThem() async throws {
        try await FileFixture.run { api, _ in
            let a = try await FileFixture.upload(api, "a.txt", "a")
            _ = try await FileFixture.upload(api, "b.txt", "bb")
            let key = try #require(a["key"]?.stringValue)
            let byKey = try await api.matching("_File", #"{"key":"\#(key)"}"#)
            #expect(byKey.count == 1)
            #expect(byKey.first?["objectId"] == a["objectId"] && byKey.first?["url"] == a["url"])
            #expect(try await api.matching("_File", #"{"name":"b.txt"}"#).first?["metaData"]?["size"] == 2)
            #expect(try await api.matching("_File", #"{"metaData.size":{"$gte":1}}"#).count == 2)

            let id = try #require(a["objectId"]?.stringValue)
            expectError(try await api.post("/1.1/classes/_File", ["name": "forged", "url": "http://x/y"]), code: 119)
            expectError(try await api.put("/1.1/classes/_File/\(id)", ["name": "renamed"]), code: 119)
            expectError(try await api.delete("/1.1/classes/_File/\(id)"), code: 403)
            #expect(try await FileFixture.fileCount(api) == 2)
            #expect(try await api.get("/1.1/files/\(id)")["name"] == "a.txt")
        }
    }

    @Test func fileValuesAreExpandedWhenIncluded() async throws {
        try await FileFixture.run { api, _ in
            let image = try await FileFixture.upload(api, "pic.png", "img", type: "image/png")
            let other = try await FileFixture.upload(api, "more.png", "more", type: "image/png")
            let imageId = try #require(image["objectId"]?.stringValue)
            let otherId = try #require(other["objectId"]?.stringValue)
            let file: (String) -> JSONValue = { ["__type": "File", "objectId": .string($0)] }
            let post = try await api.create("Post", ["image": file(imageId), "gallery": [file(imageId), file(otherId)]])

            let plain = try await api.fetch("Post", post)
            #expect(plain["image"]?["__type"] == "File" && plain["image"]?["objectId"] == .string(imageId), "\(plain)")

            let included = try await api.fetch("Post", post, ["include": "image,gallery"])
            let shown = try #require(included["image"])
            #expect(shown["__type"] == "File")
            #expect(shown["objectId"] == .string(imageId))
            #expect(shown["name"] == "pic.png")
            #expect(shown["url"] == image["url"])
            #expect(shown["mime_type"] == "image/png")
            let gallery = included["gallery"]?.arrayValue ?? []
            #expect(gallery.map { $0["url"] } == [image["url"], other["url"]], "\(included)")

            let found = try await api.results("Post", ["include": "image"])
            #expect(found.first?["image"]?["url"] == image["url"], "\(found)")
            // The URL it names serves the bytes.
            #expect(try await api.get(try FileFixture.path(shown["url"]), headers: Headers.none).text == "img")
        }
    }
}
