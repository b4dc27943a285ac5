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

/// Direct uploads, external files, fetching and deleting files, end to end over real HTTP.
@Suite struct FileUploadTests {
    @Test func aRawUploadAnswersTheFileObjectAndKeepsTheBytes() async throws {
        // The URL answered is the server's own address and port.
        try await FileFixture.run(transport: .socket) { api, directory in
            let reply = try await api.send(
                .post, "/1.1/files/hello.txt", headers: FileFixture.typed("text/plain"), body: "Hello, World!")
            #expect(reply.status == .created, "\(reply)")
            let file = try #require(reply.json)
            let id = try #require(file["objectId"]?.stringValue)
            let key = try #require(file["key"]?.stringValue)
            #expect(isObjectId(id))
            #expect(file["name"] == "hello.txt")
            #expect(file["mime_type"] == "text/plain")
            #expect(key.hasSuffix(".txt") && key.count > 20, "key \(key)")
            // The test client sends `Host: localhost`.
            #expect(file["url"] == .string("http://127.0.0.1:\(api.port)/files/\(key)"))
            #expect(reply.header("Location") == "http://127.0.0.1:\(api.port)/files/\(key)")
            #expect(file["metaData"] == ["size": 13, "_checksum": .string(MD5.hex("Hello, World!")), "owner": "unknown"])
            #expect(isCanonicalISODate(file["createdAt"]?.stringValue), "\(file)")

            // The bytes are on disk under the key, and nothing is left half-written.
            #expect(try FileFixture.storedKeys(directory) == [key])
            #expect(try String(contentsOfFile: directory + "/files/" + key, encoding: .utf8) == "Hello, World!")
            #expect(try FileFixture.incoming(directory).isEmpty)

            // GET /files/{id} answers the same object.
            let fetched = try await api.get("/1.1/files/\(id)")
            #expect(fetched.status == .ok)
            for field in ["objectId", "name", "key", "url", "mime_type", "metaData", "createdAt"] {
                #expect(fetched[field] == file[field], "\(field) of \(fetched)")
            }
            let download = try await api.get("/files/\(key)", headers: Headers.none)
            #expect(download.status == .ok && download.text == "Hello, World!", "\(download)")
        }
    }

    @Test func theOwnerIsTheUploadingUser() async throws {
        try await FileFixture.run { api, _ in
            let ada = try await FileFixture.signUp(api, "ada")
            let file = try await FileFixture.upload(api, "mine.txt", "mine", headers: ada.session)
            #expect(file["metaData"]?["owner"] == .string(ada.id))
            // A client can't claim someone else's file by naming an owner.
            let external = try await api.post(
                "/1.1/files", headers: ada.session,
                ["name": "x.png", "url": "https://example.com/x.png", "metaData": ["owner": "somebodyElse"]])
            #expect(external["metaData"]?["owner"] == .string(ada.id), "\(external)")
        }
    }

    @Test(arguments: [
        // (name, Content-Type sent, type stored)
        ("a.png", "image/svg+xml", "image/svg+xml"),
        ("photo.JPG", "application/x-www-form-urlencoded", "image/jpeg"),
        ("report.pdf", "application/x-www-form-urlencoded; charset=utf-8", "application/pdf"),
        ("notes.md", "application/x-www-form-urlencoded", "text/markdown"),
        ("blob", "application/x-www-form-urlencoded", "application/octet-stream"),
        ("archive.unknownext", "application/x-www-form-urlencoded", "application/octet-stream"),
        ("data.bin", "application/octet-stream", "application/octet-stream"),
    ])
    func theTypeIsTheRequestsElseTheNames(name: String, sent: String, stored: String) async throws {
        try await FileFixture.run { api, _ in
            let file = try await FileFixture.upload(api, name, "x", type: sent)
            #expect(file["mime_type"] == .string(stored), "\(name) sent as \(sent): \(file)")
            let download = try await api.get(try FileFixture.path(file["url"]), headers: Headers.none)
            #expect(download.header("Content-Type") == stored)
        }
    }

    @Test func anUploadWithNoContentTypeTakesTheNamesType() async throws {
        try await FileFixture.run { api, _ in
            let reply = try await api.client.execute(
                uri: "/1.1/files/page.html", method: .post, headers: Headers.client, body: ByteBuffer(string: "<p>")
            ) { Reply($0) }
            #expect(reply.status == .created, "\(reply)")
            #expect(reply["mime_type"] == "text/html")
            #expect(reply["metaData"]?["size"] == 3)
        }
    }

    @Test func binaryBytesComeBackUnchanged() async throws {
        try await FileFixture.run { api, directory in
            let bytes = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            let sent = try await FileFixture.exchange(
                api, .post, "/1.1/files/table.bin", headers: FileFixture.typed("application/octet-stream"), body: bytes)
            #expect(sent.status == .created)
            let file = try JSONValue(parsing: sent.body)
            #expect(file["metaData"]?["size"] == 1024)
            let path = try FileFixture.path(file["url"])
            let whole = try await FileFixture.exchange(api, .get, path)
            #expect(whole.status == .ok && whole.body == bytes)
            let part = try await FileFixture.exchange(api, .get, path, headers: FileFixture.adding("Range", "bytes=1000-1023"))
            #expect(part.status == .partialContent && part.body == Array(bytes[1000...]))
            let key = try #require(file["key"]?.stringValue)
            #expect(FileManager.default.contents(atPath: directory + "/files/" + key) == Data(bytes))
        }
    }

    @Test func anEmptyFileIsAFile() async throws {
        try await FileFixture.run { api, directory in
            let file = try await FileFixture.upload(api, "empty.txt", "")
            #expect(file["metaData"]?["size"] == 0)
            #expect(file["metaData"]?["_checksum"] == "d41d8cd98f00b204e9800998ecf8427e")
            let path = try FileFixture.path(file["url"])
            let download = try await api.get(path, headers: Headers.none)
            #expect(download.status == .ok && download.text.isEmpty, "\(download)")
            #expect(download.header("Content-Length") == "0")
            // No byte of it can be asked for.
            let range = try await api.get(path, headers: FileFixture.adding("Range", "bytes=0-"))
            #expect(range.status == .rangeNotSatisfiable && range.header("Content-Range") == "bytes */0", "\(range)")
            #expect(try FileFixture.storedKeys(directory) == [try #require(file["key"]?.stringValue)])
        }
    }

    @Test func jsonBytesThatDescribeNoExternalFileAreStoredAsTheyAre() async throws {
        try await FileFixture.run { api, _ in
            let body = #"{"a":1,"url":"https://example.com/x"}"#
            let file = try await FileFixture.upload(api, "data.json", body, type: "application/json")
            #expect(file["mime_type"] == "application/json")
            #expect(file["metaData"]?["size"] == .int(Int64(body.utf8.count)))
            #expect(file["key"]?.stringValue != nil)
            #expect(file["provider"] != "external")
            let download = try await api.get(try FileFixture.path(file["url"]), headers: Headers.none)
            #expect(download.text == body)
        }
    }

    @Test func fileNamesInThePathArePercentDecoded() async throws {
        try await FileFixture.run { api, _ in
            // "résumé final.PDF", as a client must write it in a path.
            let spaced = try await FileFixture.upload(api, "r%C3%A9sum%C3%A9%20final.PDF", "%PDF", type: "application/x-www-form-urlencoded")
            #expect(spaced["name"] == "résumé final.PDF", "\(spaced)")
            #expect(spaced["mime_type"] == "application/pdf")
            #expect(spaced["key"]?.stringValue?.hasSuffix(".pdf") == true, "\(spaced)")
            // An encoded slash is still a slash in a name: refused.
            expectError(
                try await api.send(.post, "/1.1/files/a%2Fb.txt", headers: FileFixture.typed("text/plain"), body: "x"), code: 122)
            #expect(try await FileFixture.fileCount(api) == 1)
        }
    }

    @Test func fileNamesAreChecked() async throws {
        try await FileFixture.run { api, _ in
            let longest = String(repeating: "n", count: 251) + ".txt"
            #expect(try await FileFixture.upload(api, longest, "x")["name"] == .string(longest))
            let tooLong = String(repeating: "n", count: 252) + ".txt"
            expectError(
                try await api.send(.post, "/1.1/files/\(tooLong)", headers: FileFixture.typed("text/plain"), body: "x"), code: 122)
            let shouting = try await FileFixture.upload(api, "PHOTO.PNG", "x", type: "application/x-www-form-urlencoded")
            #expect(shouting["name"] == "PHOTO.PNG" && shouting["mime_type"] == "image/png")
            #expect(shouting["key"]?.stringValue?.hasSuffix(".png") == true, "the key's extension is lowercase: \(shouting)")
            #expect(try await FileFixture.fileCount(api) == 2)
        }
    }

    @Test func theSDKsExternalFileFormRecordsAURLAndStoresNothing() async throws {
        try await FileFixture.run { api, directory in
            let reply = try await api.post(
                "/1.1/files/avatar.jpg",
                ["name": "avatar.jpg", "url": "https://cdn.example.com/a.jpg", "metaData": ["__source": "external"]])
            #expect(reply.status == .created, "\(reply)")
            #expect(reply["provider"] == "external")
            #expect(reply["url"] == "https://cdn.example.com/a.jpg")
            #expect(reply.header("Location") == "https://cdn.example.com/a.jpg")
            #expect(reply["name"] == "avatar.jpg")
            #expect(reply["mime_type"] == "image/jpeg")
            #expect(reply["key"] == nil)
            #expect(reply["metaData"] == ["owner": "unknown"], "the __source mark is not stored: \(reply)")
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            let id = try #require(reply.objectId)
            #expect(try await api.get("/1.1/files/\(id)")["url"] == "https://cdn.example.com/a.jpg")
        }
    }

    @Test func postingToFilesRecordsAnExternalFile() async throws {
        try await FileFixture.run { api, directory in
            let reply = try await api.post(
                "/1.1/files",
                ["name": "logo", "url": "http://example.com/logo", "mime_type": "image/webp", "metaData": ["width": 64]])
            #expect(reply.status == .created, "\(reply)")
            #expect(reply["provider"] == "external")
            #expect(reply["mime_type"] == "image/webp")
            #expect(reply["url"] == "http://example.com/logo")
            #expect(reply["metaData"]?["width"] == 64)
            #expect(reply["metaData"]?["owner"] == "unknown")
            #expect(isObjectId(reply.objectId))
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            #expect(try await FileFixture.fileCount(api) == 1)
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "not a url", "/files/abc"])
    func anExternalFileNeedsAnHTTPURL(url: String) async throws {
        try await FileFixture.run { api, _ in
            expectError(try await api.post("/1.1/files", ["name": "x.png", "url": .string(url)]), code: 1, status: .badRequest)
            // The SDK's form, posted to files/{name}, too.
            let sdk = try await api.post(
                "/1.1/files/x.png", ["name": "x.png", "url": .string(url), "metaData": ["__source": "external"]])
            expectError(sdk, code: 1, status: .badRequest)
            #expect(try await FileFixture.fileCount(api) == 0)
        }
    }

    @Test func anExternalFileWithoutAURLIsRefused() async throws {
        try await FileFixture.run { api, _ in
            expectError(try await api.post("/1.1/files", ["name": "x.png"]), code: 1, status: .badRequest)
            #expect(try await FileFixture.fileCount(api) == 0)
        }
    }

    @Test func anExternalFilesACLGuardsItsObject() async throws {
        try await FileFixture.run { api, _ in
            let ada = try await FileFixture.signUp(api, "ada")
            let bob = try await FileFixture.signUp(api, "bob")
            let reply = try await api.post(
                "/1.1/files", headers: ada.session,
                ["name": "private.png", "url": "https://example.com/p.png", "ACL": .object([ada.id: ["read": true]])])
            let id = try #require(reply.objectId, "\(reply)")
            #expect(try await api.get("/1.1/files/\(id)", headers: ada.session).status == .ok)
            expectError(try await api.get("/1.1/files/\(id)", headers: bob.session), code: 101, status: .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
        }
    }

    @Test func unknownFilesAre101() async throws {
        try await FileFixture.run { api, _ in
            // Before any file exists, and after.
            expectError(try await api.get("/1.1/files/0123456789abcdef01234567"), code: 101, status: .notFound)
            expectError(
                try await api.delete("/1.1/files/0123456789abcdef01234567", headers: Headers.master), code: 101,
                status: .notFound)
            _ = try await FileFixture.upload(api, "a.txt", "a")
            expectError(try await api.get("/1.1/files/0123456789abcdef01234567"), code: 101, status: .notFound)
            expectError(
                try await api.delete("/1.1/files/0123456789abcdef01234567", headers: Headers.master), code: 101,
                status: .notFound)
        }
    }

    @Test func theMasterKeyDeletesAFileAndItsBytes() async throws {
        try await FileFixture.run { api, directory in
            let keep = try await FileFixture.upload(api, "keep.txt", "keep")
            let file = try await FileFixture.upload(api, "gone.txt", "gone")
            let id = try #require(file["objectId"]?.stringValue)
            let key = try #require(file["key"]?.stringValue)
            let path = try FileFixture.path(file["url"])
            #expect(try await api.get(path, headers: Headers.none).status == .ok)

            let deleted = try await api.delete("/1.1/files/\(id)", headers: Headers.master)
            #expect(deleted.status == .ok && deleted.json == [:], "\(deleted)")
            #expect(try await api.get(path, headers: Headers.none).status == .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try await api.matching("_File", #"{"key":"\#(key)"}"#).isEmpty)
            #expect(try FileFixture.storedKeys(directory) == [try #require(keep["key"]?.stringValue)])
            // Deleting twice finds nothing; the other file is untouched.
            expectError(try await api.delete("/1.1/files/\(id)", headers: Headers.master), code: 101, status: .notFound)
            #expect(try await api.get(try FileFixture.path(keep["url"]), headers: Headers.none).text == "keep")
        }
    }

    @Test func clientsMayNotDeleteFilesByDefault() async throws {
        try await FileFixture.run { api, _ in
            let ada = try await FileFixture.signUp(api, "ada")
            let file = try await FileFixture.upload(api, "mine.txt", "mine", headers: ada.session)
            let id = try #require(file["objectId"]?.stringValue)
            // `_File`'s delete is closed by default (LeanCloud's class permission).
            expectError(try await api.delete("/1.1/files/\(id)"), code: 403, status: .forbidden)
            // Even its owner: ownersMayDeleteFiles is off.
            expectError(try await api.delete("/1.1/files/\(id)", headers: ada.session), code: 403, status: .forbidden)
            #expect(try await api.get("/1.1/files/\(id)").status == .ok)
            #expect(try await api.get(try FileFixture.path(file["url"]), headers: Headers.none).text == "mine")
        }
    }

    @Test func ownersMayDeleteTheirFilesWhenAllowed() async throws {
        try await FileFixture.run(configure: { $0.ownersMayDeleteFiles = true }) { api, directory in
            let ada = try await FileFixture.signUp(api, "ada")
            let bob = try await FileFixture.signUp(api, "bob")
            let file = try await FileFixture.upload(api, "ada.txt", "ada's", headers: ada.session)
            let id = try #require(file["objectId"]?.stringValue)
            let anonymous = try await FileFixture.upload(api, "anon.txt", "nobody's")
            let anonymousId = try #require(anonymous["objectId"]?.stringValue)

            expectError(try await api.delete("/1.1/files/\(id)"), code: 403, status: .forbidden)
            expectError(try await api.delete("/1.1/files/\(id)", headers: bob.session), code: 403, status: .forbidden)
            // A file nobody owns ("unknown") is nobody's to delete but the master key's.
            expectError(try await api.delete("/1.1/files/\(anonymousId)", headers: ada.session), code: 403, status: .forbidden)
            #expect(try await api.get(try FileFixture.path(file["url"]), headers: Headers.none).text == "ada's")

            let deleted = try await api.delete("/1.1/files/\(id)", headers: ada.session)
            #expect(deleted.status == .ok && deleted.json == [:], "\(deleted)")
            #expect(try await api.get(try FileFixture.path(file["url"]), headers: Headers.none).status == .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try FileFixture.storedKeys(directory) == [try #require(anonymous["key"]?.stringValue)])
        }
    }
}
