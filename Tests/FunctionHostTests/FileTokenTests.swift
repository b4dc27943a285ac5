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

/// The token upload (`fileTokens`, the PUT, `fileCallback`), end to end over real HTTP.
@Suite struct FileTokenTests {
    @Test func theTokenFlowStoresTheFileUnderThePromisedIdKeyAndOwner() async throws {
        // The URLs handed out are the server's own address and port.
        try await FileFixture.run(transport: .socket) { api, directory in
            let ada = try await FileFixture.signUp(api, "ada")
            let issued = try await api.post(
                "/1.1/fileTokens", headers: ada.session, ["name": "photo.png", "metaData": ["width": 10, "size": 8]])
            #expect(issued.status == .ok, "\(issued)")
            let id = try #require(issued["objectId"]?.stringValue)
            let token = try #require(issued["token"]?.stringValue)
            let key = try #require(issued["key"]?.stringValue)
            #expect(isObjectId(id) && !token.isEmpty && key.hasSuffix(".png"), "\(issued)")
            #expect(issued["provider"] == "s3")
            #expect(issued["mime_type"] == "image/png")
            // Without a public URL, URLs start with the address the connection reached.
            #expect(issued["url"] == .string("http://127.0.0.1:\(api.port)/files/\(key)"))
            #expect(issued["upload_url"] == .string("http://127.0.0.1:\(api.port)/1.1/fileUploads/\(token)"))

            // Nothing exists until the bytes arrive.
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try await api.get("/files/\(key)", headers: Headers.none).status == .notFound)

            // The PUT carries no app keys: the token is its credential.
            let put = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("image/png", Headers.none), body: "PNGBYTES")
            #expect(put.status == .ok && put.json == ["objectId": .string(id)], "\(put)")

            let file = try await api.get("/1.1/files/\(id)")
            #expect(file.status == .ok, "\(file)")
            #expect(file["key"] == .string(key) && file["url"] == issued["url"] && file["name"] == "photo.png")
            #expect(file["mime_type"] == "image/png")
            #expect(
                file["metaData"] == [
                    "width": 10, "size": 8, "_checksum": .string(MD5.hex("PNGBYTES")), "owner": .string(ada.id),
                ], "\(file)")
            let download = try await api.get("/files/\(key)", headers: Headers.none)
            #expect(download.status == .ok && download.text == "PNGBYTES")
            #expect(download.header("Content-Type") == "image/png")
            #expect(try FileFixture.storedKeys(directory) == [key])

            let confirmed = try await api.post("/1.1/fileCallback", ["token": .string(token), "result": true])
            #expect(confirmed.status == .ok && confirmed.json == [:], "\(confirmed)")
            #expect(try await api.get("/files/\(key)", headers: Headers.none).text == "PNGBYTES")
        }
    }

    @Test func aTokenWorksOnce() async throws {
        try await FileFixture.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "once.txt"])
            let uploadPath = try FileFixture.path(issued["upload_url"])
            #expect(try await api.send(.put, uploadPath, headers: FileFixture.typed("text/plain", Headers.none), body: "one").status == .ok)
            let again = try await api.send(.put, uploadPath, headers: FileFixture.typed("text/plain", Headers.none), body: "two")
            expectError(again, code: 603, status: .badRequest)
            #expect(try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none).text == "one")
            #expect(try await FileFixture.fileCount(api) == 1)
        }
    }

    @Test func twoRacingUploadsWithOneTokenStoreOneFile() async throws {
        try await FileFixture.run(transport: .socket) { api, directory in
            let issued = try await api.post("/1.1/fileTokens", ["name": "race.txt"])
            let url = "http://127.0.0.1:\(api.port)" + (try FileFixture.path(issued["upload_url"]))
            let statuses = try await HTTPClient.withHTTPClient { client in
                try await withThrowingTaskGroup(of: UInt.self) { group in
                    for body in ["first", "second"] {
                        group.addTask {
                            var request = HTTPClientRequest(url: url)
                            request.method = .PUT
                            request.headers.add(name: "Content-Type", value: "text/plain")
                            request.body = .bytes(ByteBuffer(string: body))
                            let response = try await client.execute(request, timeout: .seconds(30))
                            _ = try await response.body.collect(upTo: 1 << 16)
                            return response.status.code
                        }
                    }
                    return try await group.reduce(into: [UInt]()) { $0.append($1) }.sorted()
                }
            }
            #expect(statuses == [200, 400], "\(statuses)")
            #expect(try await FileFixture.fileCount(api) == 1)
            #expect(try FileFixture.storedKeys(directory) == [try #require(issued["key"]?.stringValue)])
            let text = try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none).text
            #expect(text == "first" || text == "second")
        }
    }

    @Test func aFailedCallbackRemovesAnUploadedFile() async throws {
        try await FileFixture.run { api, directory in
            let issued = try await api.post("/1.1/fileTokens", ["name": "failed.txt"])
            let id = try #require(issued["objectId"]?.stringValue)
            let token = try #require(issued["token"]?.stringValue)
            let put = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "bytes")
            #expect(put.status == .ok)
            let failed = try await api.post("/1.1/fileCallback", ["token": .string(token), "result": false])
            #expect(failed.status == .ok && failed.json == [:], "\(failed)")
            #expect(try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none).status == .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            // The token is given up with it.
            expectError(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": true]), code: 603)
        }
    }

    @Test func aTokenGivenUpBeforeItsUploadCannotBeUsed() async throws {
        try await FileFixture.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "never.txt"])
            let token = try #require(issued["token"]?.stringValue)
            // Confirming an upload whose bytes never arrived is refused.
            expectError(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": true]), code: 603)
            #expect(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": false]).status == .ok)
            expectError(
                try await api.send(
                    .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "late"),
                code: 603, status: .badRequest)
            #expect(try await FileFixture.fileCount(api) == 0)
        }
    }

    @Test func unknownTokensAndIncompleteRequestsAreRefused() async throws {
        try await FileFixture.run { api, _ in
            expectError(try await api.post("/1.1/fileCallback", ["token": "nosuchtoken", "result": true]), code: 603)
            expectError(try await api.post("/1.1/fileCallback", ["token": "nosuchtoken", "result": false]), code: 603)
            expectError(try await api.post("/1.1/fileCallback", ["result": true]), code: 1, status: .badRequest)
            expectError(
                try await api.send(
                    .put, "/1.1/fileUploads/nosuchtoken", headers: FileFixture.typed("text/plain", Headers.none), body: "x"),
                code: 603, status: .badRequest)
            expectError(try await api.post("/1.1/fileTokens", ["mime_type": "text/plain"]), code: 122)
            // fileTokens itself needs the app keys.
            #expect(try await api.post("/1.1/fileTokens", headers: Headers.none, ["name": "a.txt"]).status == .unauthorized)
            #expect(try await FileFixture.fileCount(api) == 0)
        }
    }

    @Test func aTokensTypeIsTheOneAskedFor() async throws {
        try await FileFixture.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "clip", "mime_type": "video/mp4"])
            #expect(issued["mime_type"] == "video/mp4")
            #expect(issued["name"] == "clip")
            _ = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "mp4")
            let download = try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none)
            #expect(download.header("Content-Type") == "video/mp4")
            let id = try #require(issued["objectId"]?.stringValue)
            #expect(try await api.get("/1.1/files/\(id)")["mime_type"] == "video/mp4")
        }
    }

    @Test func uploadTokensAreNeitherReadableByClientsNorStoredInClear() async throws {
        try await FileFixture.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "secret.txt"])
            let token = try #require(issued["token"]?.stringValue)
            expectError(try await api.get("/1.1/classes/_FileToken"), code: 119, status: .forbidden)
            let records = try await api.get("/1.1/classes/_FileToken", headers: Headers.master)
            #expect(records.status == .ok && records.results.count == 1, "\(records)")
            #expect(!records.text.contains(token), "the token is stored hashed: \(records)")
        }
    }

    @Test func publicURLShapesTheURLsAndForwardedProtoDoesNot() async throws {
        try await FileFixture.run(configure: { $0.publicURL = "https://files.example.com" }) { api, _ in
            let reply = try await api.send(.post, "/1.1/files/a.txt", headers: FileFixture.typed("text/plain"), body: "a")
            let key = try #require(reply["key"]?.stringValue)
            #expect(reply["url"] == .string("https://files.example.com/files/\(key)"))
            #expect(reply.header("Location") == "https://files.example.com/files/\(key)")
            let issued = try await api.post("/1.1/fileTokens", ["name": "b.txt"])
            let token = try #require(issued["token"]?.stringValue)
            #expect(issued["upload_url"] == .string("https://files.example.com/1.1/fileUploads/\(token)"))
            #expect(issued["url"] == .string("https://files.example.com/files/\(try #require(issued["key"]?.stringValue))"))
            // The path is served here whatever the address in front.
            #expect(try await api.get(try FileFixture.path(reply["url"]), headers: Headers.none).text == "a")
        }
        // Without one, URLs are the server's own address and port.
        try await FileFixture.run(transport: .socket) { api, _ in
            let headers = FileFixture.adding("X-Forwarded-Proto", "https", to: FileFixture.typed("text/plain"))
            let reply = try await api.send(.post, "/1.1/files/a.txt", headers: headers, body: "a")
            // A client's header names no scheme: only --public-url does.
            #expect(reply["url"]?.stringValue?.hasPrefix("http://127.0.0.1:\(api.port)/files/") == true, "\(reply)")
        }
    }
}
