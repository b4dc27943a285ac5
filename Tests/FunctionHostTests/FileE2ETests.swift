import DataAPI
import Foundation
import HTTPTypes
import Hooks
import Testing

@testable import FunctionHost

@Suite struct FileE2ETests {
    /// Headers for a raw upload of the given type.
    private static func upload(_ type: String?, headers: HTTPFields = Headers.client) -> HTTPFields {
        var headers = headers
        headers[.contentType] = type ?? "application/octet-stream"
        return headers
    }

    /// The path part of a URL the server handed out.
    private static func path(_ url: String?) throws -> String {
        let url = try #require(url.flatMap(URL.init(string:)))
        return url.path
    }

    @Test func aDirectUploadIsStoredDescribedAndServedWithRanges() async throws {
        try await TestServer.run { api in
            let reply = try await api.send(
                .post, "/1.1/files/hello.txt", headers: Self.upload("text/plain"), body: "Hello, World!")
            #expect(reply.status == .created)
            let file = try #require(reply.json)
            #expect(file["name"] == "hello.txt")
            #expect(file["mime_type"] == "text/plain")
            #expect(file["metaData"]?["size"] == 13)
            #expect(file["metaData"]?["_checksum"] == "65a8e27d8879283831b664bd8b7f0ad4")
            #expect(file["metaData"]?["owner"] == "unknown")
            #expect(reply.header("Location") == file["url"]?.stringValue)
            let path = try Self.path(file["url"]?.stringValue)

            let whole = try await api.get(path, headers: Headers.none)
            #expect(whole.status == .ok)
            #expect(whole.text == "Hello, World!")
            #expect(whole.header("Content-Type") == "text/plain")
            #expect(whole.header("Content-Length") == "13")
            #expect(whole.header("ETag") == "\"65a8e27d8879283831b664bd8b7f0ad4\"")
            #expect(whole.header("Accept-Ranges") == "bytes")

            var range = Headers.none
            range[.range] = "bytes=7-11"
            let part = try await api.get(path, headers: range)
            #expect(part.status == .partialContent)
            #expect(part.text == "World")
            #expect(part.header("Content-Range") == "bytes 7-11/13")
            range[.range] = "bytes=-6"
            #expect(try await api.get(path, headers: range).text == "World!")
            range[.range] = "bytes=13-"
            let beyond = try await api.get(path, headers: range)
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.header("Content-Range") == "bytes */13")

            var cached = Headers.none
            cached[.ifNoneMatch] = whole.header("ETag")
            #expect(try await api.get(path, headers: cached).status == .notModified)
            let head = try await api.send(.head, path, headers: Headers.none)
            #expect(head.status == .ok)
            #expect(head.header("Content-Length") == "13")
            #expect(head.text.isEmpty)

            let id = try #require(file["objectId"]?.stringValue)
            let fetched = try await api.get("/1.1/files/\(id)")
            #expect(fetched.json?["key"] == file["key"])
            let found = try await api.get("/1.1/classes/_File?where=" + encode(#"{"key":"\#(file["key"]?.stringValue ?? "")"}"#))
            #expect(found.json?["results"]?.arrayValue?.count == 1)
            expectError(try await api.get("/files/nosuchkey", headers: Headers.none), code: 404, status: .notFound)
        }
    }

    @Test func theTypeComesFromTheExtensionWhenTheRequestDoesNotSayIt() async throws {
        try await TestServer.run { api in
            let png = try await api.send(
                .post, "/1.1/files/a.png", headers: Self.upload("application/x-www-form-urlencoded"), body: "x")
            #expect(png.json?["mime_type"] == "image/png")
            let unknown = try await api.send(
                .post, "/1.1/files/blob", headers: Self.upload("application/x-www-form-urlencoded"), body: "x")
            #expect(unknown.json?["mime_type"] == "application/octet-stream")
        }
    }

    @Test func theTokenFlowStoresTheFileUnderThePromisedId() async throws {
        try await TestServer.run { api in
            let issued = try await api.post(
                "/1.1/fileTokens", ["name": "photo.png", "metaData": ["width": 10]])
            #expect(issued.status == .ok)
            let token = try #require(issued.json?["token"]?.stringValue)
            let id = try #require(issued.json?["objectId"]?.stringValue)
            #expect(issued.json?["provider"] == "s3")
            #expect(issued.json?["mime_type"] == "image/png")
            let uploadPath = try Self.path(issued.json?["upload_url"]?.stringValue)
            // The PUT carries no app keys: the token is its credential.
            let put = try await api.send(.put, uploadPath, headers: Self.upload("image/png", headers: Headers.none), body: "PNGBYTES")
            #expect(put.status == .ok)
            #expect(put.json?["objectId"]?.stringValue == id)
            expectError(
                try await api.send(.put, uploadPath, headers: Self.upload("image/png", headers: Headers.none), body: "again"),
                code: 603)
            #expect(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": true]).status == .ok)

            let file = try #require(try await api.get("/1.1/files/\(id)").json)
            #expect(file["metaData"]?["width"] == 10)
            #expect(file["metaData"]?["size"] == 8)
            let download = try await api.get(try Self.path(issued.json?["url"]?.stringValue), headers: Headers.none)
            #expect(download.text == "PNGBYTES")

            // A failed upload reported by the client removes the file.
            #expect(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": false]).status == .ok)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            expectError(try await api.post("/1.1/fileCallback", ["token": "nosuchtoken", "result": true]), code: 603)
        }
    }

    @Test func onlyTheMasterKeyDeletesFilesUnlessOwnersMay() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.ownersMayDeleteFiles = true }) { api in
            let people = try await ACLTests.people(api)
            let (owner, other) = (people.adaSession, people.bobSession)
            let reply = try await api.send(
                .post, "/1.1/files/mine.txt", headers: Self.upload("text/plain", headers: owner), body: "mine")
            #expect(reply.json?["metaData"]?["owner"]?.stringValue == people.ada)
            let id = try #require(reply.json?["objectId"]?.stringValue)
            let path = try Self.path(reply.json?["url"]?.stringValue)
            expectError(try await api.delete("/1.1/files/\(id)"), code: 119, status: .forbidden)
            expectError(try await api.delete("/1.1/files/\(id)", headers: other), code: 119)
            #expect(try await api.delete("/1.1/files/\(id)", headers: owner).status == .ok)
            #expect(try await api.get(path, headers: Headers.none).status == .notFound)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/files")
            #expect(files == [".incoming"])
        }
    }

    @Test func aFileOverTheLimitIsRefusedAndNothingIsKept() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.maxFileSize = 10 }) { api in
            let reply = try await api.send(.post, "/1.1/files/big.txt", headers: Self.upload("text/plain"), body: "01234567890")
            expectError(reply, code: 130, status: .contentTooLarge)
            #expect(try await api.send(.post, "/1.1/files/ok.txt", headers: Self.upload("text/plain"), body: "0123456789").status == .created)
            #expect(try await api.count("_File") == 1)
            let incoming = try FileManager.default.contentsOfDirectory(atPath: directory + "/files/.incoming")
            #expect(incoming.isEmpty)
        }
    }

    @Test func externalFilesAreRecordedWithoutBytes() async throws {
        try await TestServer.run { api in
            let reply = try await api.post(
                "/1.1/files", ["name": "logo.png", "url": "https://example.com/logo.png", "metaData": ["__source": "external"]])
            #expect(reply.status == .created)
            #expect(reply.json?["url"] == "https://example.com/logo.png")
            #expect(reply.json?["provider"] == "external")
            expectError(try await api.post("/1.1/files", ["name": "x", "url": "file:///etc/passwd"]), code: 1, status: .badRequest)
            // The JS SDK's form: the JSON posted to files/{name}.
            let sdk = try await api.post(
                "/1.1/files/avatar.jpg", ["name": "avatar.jpg", "url": "https://cdn.example.com/a.jpg", "metaData": ["__source": "external"]])
            #expect(sdk.json?["url"] == "https://cdn.example.com/a.jpg")
            expectError(try await api.post("/1.1/classes/_File", ["name": "forged"]), code: 119)
        }
    }

    @Test func fileValuesComeBackWholeWhenIncluded() async throws {
        try await TestServer.run { api in
            let file = try await api.send(.post, "/1.1/files/pic.png", headers: Self.upload("image/png"), body: "img")
            let fileId = try #require(file.json?["objectId"]?.stringValue)
            let post = try await api.post("/1.1/classes/Post", ["image": ["__type": "File", "objectId": .string(fileId)]])
            let postId = try #require(post.json?["objectId"]?.stringValue)
            let included = try await api.get("/1.1/classes/Post/\(postId)?include=image")
            let image = try #require(included.json?["image"])
            #expect(image["__type"] == "File")
            #expect(image["objectId"]?.stringValue == fileId)
            #expect(image["name"] == "pic.png")
            #expect(image["url"] == file.json?["url"])
        }
    }
}
