import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import Hooks
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Testing

@testable import FunctionHost

/// Files end to end over real HTTP: both upload flows, external files, downloads with ranges
/// and validators, deletion rights, the size limit, `_File` as a class, File values, and the
/// file hooks in Swift and JavaScript.
@Suite struct FileTests {
    // MARK: Helpers

    /// Runs a server on a fresh data directory and hands the test both.
    static func run(
        functions: FunctionRegistry = FunctionRegistry(), functionsDirectory: String? = nil,
        configure: (inout HostConfiguration) -> Void = { _ in }, _ body: @Sendable (API, String) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, functions: functions, functionsDirectory: functionsDirectory, configure: configure
        ) { api in
            try await body(api, directory)
        }
    }

    /// Headers with a Content-Type for a raw upload.
    static func typed(_ type: String, _ headers: HTTPFields = Headers.client) -> HTTPFields {
        var headers = headers
        headers[.contentType] = type
        return headers
    }

    /// Headers with one more field.
    static func adding(_ name: String, _ value: String, to headers: HTTPFields = Headers.none) -> HTTPFields {
        var headers = headers
        headers[HTTPField.Name(name)!] = value
        return headers
    }

    /// Uploads `body` as `/1.1/files/{name}`, expecting 201, and returns the file's JSON.
    static func upload(
        _ api: API, _ name: String, _ body: String, type: String = "text/plain", headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await api.send(.post, "/1.1/files/\(name)", headers: typed(type, headers), body: body)
        #expect(reply.status == .created, "upload \(name): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply.json, "upload \(name): \(reply)", sourceLocation: sourceLocation)
    }

    /// The path (and query) of a URL the server handed out.
    static func path(_ url: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let text = try #require(url?.stringValue, "no url", sourceLocation: sourceLocation)
        let parsed = try #require(URL(string: text), "not a URL: \(text)", sourceLocation: sourceLocation)
        return parsed.path
    }

    /// A request whose body is raw bytes, answered with its status, headers and raw body.
    static func exchange(
        _ api: API, _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = Headers.none, body: [UInt8]? = nil
    ) async throws -> (status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]) {
        try await api.client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }) {
            ($0.status, $0.headers, Array($0.body.readableBytesView))
        }
    }

    /// The keys stored under `<data>/files`, besides the `.incoming` directory.
    static func storedKeys(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/files").filter { $0 != ".incoming" }.sorted()
    }

    /// What is left in `<data>/files/.incoming` (partial uploads).
    static func incoming(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/files/.incoming")
    }

    /// How many `_File` objects there are (none when the class was never written).
    static func fileCount(_ api: API, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        try await api.count("_File", sourceLocation: sourceLocation) ?? 0
    }

    /// Signs a user up: its id and session headers.
    static func signUp(_ api: API, _ name: String) async throws -> (id: String, session: HTTPFields) {
        let reply = try await api.post("/1.1/users", ["username": .string(name), "password": "secret"])
        #expect(reply.status == .created, "\(reply)")
        return (try #require(reply.objectId), UserTests.session(try #require(reply["sessionToken"]?.stringValue)))
    }

    /// Ten bytes whose ranges are easy to read.
    static let digits = "0123456789"

    // MARK: Direct upload

    @Test func aRawUploadAnswersTheFileObjectAndKeepsTheBytes() async throws {
        try await Self.run { api, directory in
            let reply = try await api.send(
                .post, "/1.1/files/hello.txt", headers: Self.typed("text/plain"), body: "Hello, World!")
            #expect(reply.status == .created, "\(reply)")
            let file = try #require(reply.json)
            let id = try #require(file["objectId"]?.stringValue)
            let key = try #require(file["key"]?.stringValue)
            #expect(isObjectId(id))
            #expect(file["name"] == "hello.txt")
            #expect(file["mime_type"] == "text/plain")
            #expect(key.hasSuffix(".txt") && key.count > 20, "key \(key)")
            // The test client sends `Host: localhost`.
            #expect(file["url"] == .string("http://localhost/files/\(key)"))
            #expect(reply.header("Location") == "http://localhost/files/\(key)")
            #expect(file["metaData"] == ["size": 13, "_checksum": .string(MD5.hex("Hello, World!")), "owner": "unknown"])
            #expect(isCanonicalISODate(file["createdAt"]?.stringValue), "\(file)")

            // The bytes are on disk under the key, and nothing is left half-written.
            #expect(try Self.storedKeys(directory) == [key])
            #expect(try String(contentsOfFile: directory + "/files/" + key, encoding: .utf8) == "Hello, World!")
            #expect(try Self.incoming(directory).isEmpty)

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
        try await Self.run { api, _ in
            let ada = try await Self.signUp(api, "ada")
            let file = try await Self.upload(api, "mine.txt", "mine", headers: ada.session)
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
        try await Self.run { api, _ in
            let file = try await Self.upload(api, name, "x", type: sent)
            #expect(file["mime_type"] == .string(stored), "\(name) sent as \(sent): \(file)")
            let download = try await api.get(try Self.path(file["url"]), headers: Headers.none)
            #expect(download.header("Content-Type") == stored)
        }
    }

    @Test func anUploadWithNoContentTypeTakesTheNamesType() async throws {
        try await Self.run { api, _ in
            let reply = try await api.client.execute(
                uri: "/1.1/files/page.html", method: .post, headers: Headers.client, body: ByteBuffer(string: "<p>")
            ) { Reply($0) }
            #expect(reply.status == .created, "\(reply)")
            #expect(reply["mime_type"] == "text/html")
            #expect(reply["metaData"]?["size"] == 3)
        }
    }

    @Test func binaryBytesComeBackUnchanged() async throws {
        try await Self.run { api, directory in
            let bytes = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            let sent = try await Self.exchange(
                api, .post, "/1.1/files/table.bin", headers: Self.typed("application/octet-stream"), body: bytes)
            #expect(sent.status == .created)
            let file = try JSONValue(parsing: sent.body)
            #expect(file["metaData"]?["size"] == 1024)
            let path = try Self.path(file["url"])
            let whole = try await Self.exchange(api, .get, path)
            #expect(whole.status == .ok && whole.body == bytes)
            let part = try await Self.exchange(api, .get, path, headers: Self.adding("Range", "bytes=1000-1023"))
            #expect(part.status == .partialContent && part.body == Array(bytes[1000...]))
            let key = try #require(file["key"]?.stringValue)
            #expect(FileManager.default.contents(atPath: directory + "/files/" + key) == Data(bytes))
        }
    }

    @Test func anEmptyFileIsAFile() async throws {
        try await Self.run { api, directory in
            let file = try await Self.upload(api, "empty.txt", "")
            #expect(file["metaData"]?["size"] == 0)
            #expect(file["metaData"]?["_checksum"] == "d41d8cd98f00b204e9800998ecf8427e")
            let path = try Self.path(file["url"])
            let download = try await api.get(path, headers: Headers.none)
            #expect(download.status == .ok && download.text.isEmpty, "\(download)")
            #expect(download.header("Content-Length") == "0")
            // No byte of it can be asked for.
            let range = try await api.get(path, headers: Self.adding("Range", "bytes=0-"))
            #expect(range.status == .rangeNotSatisfiable && range.header("Content-Range") == "bytes */0", "\(range)")
            #expect(try Self.storedKeys(directory) == [try #require(file["key"]?.stringValue)])
        }
    }

    @Test func jsonBytesThatDescribeNoExternalFileAreStoredAsTheyAre() async throws {
        try await Self.run { api, _ in
            let body = #"{"a":1,"url":"https://example.com/x"}"#
            let file = try await Self.upload(api, "data.json", body, type: "application/json")
            #expect(file["mime_type"] == "application/json")
            #expect(file["metaData"]?["size"] == .int(Int64(body.utf8.count)))
            #expect(file["key"]?.stringValue != nil)
            #expect(file["provider"] != "external")
            let download = try await api.get(try Self.path(file["url"]), headers: Headers.none)
            #expect(download.text == body)
        }
    }

    @Test func fileNamesInThePathArePercentDecoded() async throws {
        try await Self.run { api, _ in
            // "résumé final.PDF", as a client must write it in a path.
            let spaced = try await Self.upload(api, "r%C3%A9sum%C3%A9%20final.PDF", "%PDF", type: "application/x-www-form-urlencoded")
            #expect(spaced["name"] == "résumé final.PDF", "\(spaced)")
            #expect(spaced["mime_type"] == "application/pdf")
            #expect(spaced["key"]?.stringValue?.hasSuffix(".pdf") == true, "\(spaced)")
            // An encoded slash is still a slash in a name: refused.
            expectError(
                try await api.send(.post, "/1.1/files/a%2Fb.txt", headers: Self.typed("text/plain"), body: "x"), code: 122)
            #expect(try await Self.fileCount(api) == 1)
        }
    }

    @Test func fileNamesAreChecked() async throws {
        try await Self.run { api, _ in
            let longest = String(repeating: "n", count: 251) + ".txt"
            #expect(try await Self.upload(api, longest, "x")["name"] == .string(longest))
            let tooLong = String(repeating: "n", count: 252) + ".txt"
            expectError(
                try await api.send(.post, "/1.1/files/\(tooLong)", headers: Self.typed("text/plain"), body: "x"), code: 122)
            let shouting = try await Self.upload(api, "PHOTO.PNG", "x", type: "application/x-www-form-urlencoded")
            #expect(shouting["name"] == "PHOTO.PNG" && shouting["mime_type"] == "image/png")
            #expect(shouting["key"]?.stringValue?.hasSuffix(".png") == true, "the key's extension is lowercase: \(shouting)")
            #expect(try await Self.fileCount(api) == 2)
        }
    }

    // MARK: External files

    @Test func theSDKsExternalFileFormRecordsAURLAndStoresNothing() async throws {
        try await Self.run { api, directory in
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
            #expect(try Self.storedKeys(directory).isEmpty)
            let id = try #require(reply.objectId)
            #expect(try await api.get("/1.1/files/\(id)")["url"] == "https://cdn.example.com/a.jpg")
        }
    }

    @Test func postingToFilesRecordsAnExternalFile() async throws {
        try await Self.run { api, directory in
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
            #expect(try Self.storedKeys(directory).isEmpty)
            #expect(try await Self.fileCount(api) == 1)
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "not a url", "/files/abc"])
    func anExternalFileNeedsAnHTTPURL(url: String) async throws {
        try await Self.run { api, _ in
            expectError(try await api.post("/1.1/files", ["name": "x.png", "url": .string(url)]), code: 1, status: .badRequest)
            // The SDK's form, posted to files/{name}, too.
            let sdk = try await api.post(
                "/1.1/files/x.png", ["name": "x.png", "url": .string(url), "metaData": ["__source": "external"]])
            expectError(sdk, code: 1, status: .badRequest)
            #expect(try await Self.fileCount(api) == 0)
        }
    }

    @Test func anExternalFileWithoutAURLIsRefused() async throws {
        try await Self.run { api, _ in
            expectError(try await api.post("/1.1/files", ["name": "x.png"]), code: 1, status: .badRequest)
            #expect(try await Self.fileCount(api) == 0)
        }
    }

    @Test func anExternalFilesACLGuardsItsObject() async throws {
        try await Self.run { api, _ in
            let ada = try await Self.signUp(api, "ada")
            let bob = try await Self.signUp(api, "bob")
            let reply = try await api.post(
                "/1.1/files", headers: ada.session,
                ["name": "private.png", "url": "https://example.com/p.png", "ACL": .object([ada.id: ["read": true]])])
            let id = try #require(reply.objectId, "\(reply)")
            #expect(try await api.get("/1.1/files/\(id)", headers: ada.session).status == .ok)
            expectError(try await api.get("/1.1/files/\(id)", headers: bob.session), code: 101, status: .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
        }
    }

    // MARK: Fetch and delete

    @Test func unknownFilesAre101() async throws {
        try await Self.run { api, _ in
            // Before any file exists, and after.
            expectError(try await api.get("/1.1/files/0123456789abcdef01234567"), code: 101, status: .notFound)
            expectError(
                try await api.delete("/1.1/files/0123456789abcdef01234567", headers: Headers.master), code: 101,
                status: .notFound)
            _ = try await Self.upload(api, "a.txt", "a")
            expectError(try await api.get("/1.1/files/0123456789abcdef01234567"), code: 101, status: .notFound)
            expectError(
                try await api.delete("/1.1/files/0123456789abcdef01234567", headers: Headers.master), code: 101,
                status: .notFound)
        }
    }

    @Test func theMasterKeyDeletesAFileAndItsBytes() async throws {
        try await Self.run { api, directory in
            let keep = try await Self.upload(api, "keep.txt", "keep")
            let file = try await Self.upload(api, "gone.txt", "gone")
            let id = try #require(file["objectId"]?.stringValue)
            let key = try #require(file["key"]?.stringValue)
            let path = try Self.path(file["url"])
            #expect(try await api.get(path, headers: Headers.none).status == .ok)

            let deleted = try await api.delete("/1.1/files/\(id)", headers: Headers.master)
            #expect(deleted.status == .ok && deleted.json == [:], "\(deleted)")
            #expect(try await api.get(path, headers: Headers.none).status == .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try await api.matching("_File", #"{"key":"\#(key)"}"#).isEmpty)
            #expect(try Self.storedKeys(directory) == [try #require(keep["key"]?.stringValue)])
            // Deleting twice finds nothing; the other file is untouched.
            expectError(try await api.delete("/1.1/files/\(id)", headers: Headers.master), code: 101, status: .notFound)
            #expect(try await api.get(try Self.path(keep["url"]), headers: Headers.none).text == "keep")
        }
    }

    @Test func clientsMayNotDeleteFilesByDefault() async throws {
        try await Self.run { api, _ in
            let ada = try await Self.signUp(api, "ada")
            let file = try await Self.upload(api, "mine.txt", "mine", headers: ada.session)
            let id = try #require(file["objectId"]?.stringValue)
            expectError(try await api.delete("/1.1/files/\(id)"), code: 119, status: .forbidden)
            // Even its owner: ownersMayDeleteFiles is off.
            expectError(try await api.delete("/1.1/files/\(id)", headers: ada.session), code: 119, status: .forbidden)
            #expect(try await api.get("/1.1/files/\(id)").status == .ok)
            #expect(try await api.get(try Self.path(file["url"]), headers: Headers.none).text == "mine")
        }
    }

    @Test func ownersMayDeleteTheirFilesWhenAllowed() async throws {
        try await Self.run(configure: { $0.ownersMayDeleteFiles = true }) { api, directory in
            let ada = try await Self.signUp(api, "ada")
            let bob = try await Self.signUp(api, "bob")
            let file = try await Self.upload(api, "ada.txt", "ada's", headers: ada.session)
            let id = try #require(file["objectId"]?.stringValue)
            let anonymous = try await Self.upload(api, "anon.txt", "nobody's")
            let anonymousId = try #require(anonymous["objectId"]?.stringValue)

            expectError(try await api.delete("/1.1/files/\(id)"), code: 119, status: .forbidden)
            expectError(try await api.delete("/1.1/files/\(id)", headers: bob.session), code: 119, status: .forbidden)
            // A file nobody owns ("unknown") is nobody's to delete but the master key's.
            expectError(try await api.delete("/1.1/files/\(anonymousId)", headers: ada.session), code: 119, status: .forbidden)
            #expect(try await api.get(try Self.path(file["url"]), headers: Headers.none).text == "ada's")

            let deleted = try await api.delete("/1.1/files/\(id)", headers: ada.session)
            #expect(deleted.status == .ok && deleted.json == [:], "\(deleted)")
            #expect(try await api.get(try Self.path(file["url"]), headers: Headers.none).status == .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try Self.storedKeys(directory) == [try #require(anonymous["key"]?.stringValue)])
        }
    }

    // MARK: Token upload

    @Test func theTokenFlowStoresTheFileUnderThePromisedIdKeyAndOwner() async throws {
        try await Self.run { api, directory in
            let ada = try await Self.signUp(api, "ada")
            let issued = try await api.post(
                "/1.1/fileTokens", headers: ada.session, ["name": "photo.png", "metaData": ["width": 10]])
            #expect(issued.status == .ok, "\(issued)")
            let id = try #require(issued["objectId"]?.stringValue)
            let token = try #require(issued["token"]?.stringValue)
            let key = try #require(issued["key"]?.stringValue)
            #expect(isObjectId(id) && !token.isEmpty && key.hasSuffix(".png"), "\(issued)")
            #expect(issued["provider"] == "s3")
            #expect(issued["mime_type"] == "image/png")
            #expect(issued["url"] == .string("http://localhost/files/\(key)"))
            #expect(issued["upload_url"] == .string("http://localhost/1.1/fileUploads/\(token)"))

            // Nothing exists until the bytes arrive.
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try await api.get("/files/\(key)", headers: Headers.none).status == .notFound)

            // The PUT carries no app keys: the token is its credential.
            let put = try await api.send(
                .put, try Self.path(issued["upload_url"]), headers: Self.typed("image/png", Headers.none), body: "PNGBYTES")
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
            #expect(try Self.storedKeys(directory) == [key])

            let confirmed = try await api.post("/1.1/fileCallback", ["token": .string(token), "result": true])
            #expect(confirmed.status == .ok && confirmed.json == [:], "\(confirmed)")
            #expect(try await api.get("/files/\(key)", headers: Headers.none).text == "PNGBYTES")
        }
    }

    @Test func aTokenWorksOnce() async throws {
        try await Self.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "once.txt"])
            let uploadPath = try Self.path(issued["upload_url"])
            #expect(try await api.send(.put, uploadPath, headers: Self.typed("text/plain", Headers.none), body: "one").status == .ok)
            let again = try await api.send(.put, uploadPath, headers: Self.typed("text/plain", Headers.none), body: "two")
            expectError(again, code: 603, status: .badRequest)
            #expect(try await api.get(try Self.path(issued["url"]), headers: Headers.none).text == "one")
            #expect(try await Self.fileCount(api) == 1)
        }
    }

    @Test func twoRacingUploadsWithOneTokenStoreOneFile() async throws {
        try await Self.run { api, directory in
            let issued = try await api.post("/1.1/fileTokens", ["name": "race.txt"])
            let url = "http://127.0.0.1:\(api.port)" + (try Self.path(issued["upload_url"]))
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
            #expect(try await Self.fileCount(api) == 1)
            #expect(try Self.storedKeys(directory) == [try #require(issued["key"]?.stringValue)])
            let text = try await api.get(try Self.path(issued["url"]), headers: Headers.none).text
            #expect(text == "first" || text == "second")
        }
    }

    @Test func aFailedCallbackRemovesAnUploadedFile() async throws {
        try await Self.run { api, directory in
            let issued = try await api.post("/1.1/fileTokens", ["name": "failed.txt"])
            let id = try #require(issued["objectId"]?.stringValue)
            let token = try #require(issued["token"]?.stringValue)
            let put = try await api.send(
                .put, try Self.path(issued["upload_url"]), headers: Self.typed("text/plain", Headers.none), body: "bytes")
            #expect(put.status == .ok)
            let failed = try await api.post("/1.1/fileCallback", ["token": .string(token), "result": false])
            #expect(failed.status == .ok && failed.json == [:], "\(failed)")
            #expect(try await api.get(try Self.path(issued["url"]), headers: Headers.none).status == .notFound)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try Self.storedKeys(directory).isEmpty)
            // The token is given up with it.
            expectError(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": true]), code: 603)
        }
    }

    @Test func aTokenGivenUpBeforeItsUploadCannotBeUsed() async throws {
        try await Self.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "never.txt"])
            let token = try #require(issued["token"]?.stringValue)
            // Confirming an upload whose bytes never arrived is refused.
            expectError(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": true]), code: 603)
            #expect(try await api.post("/1.1/fileCallback", ["token": .string(token), "result": false]).status == .ok)
            expectError(
                try await api.send(
                    .put, try Self.path(issued["upload_url"]), headers: Self.typed("text/plain", Headers.none), body: "late"),
                code: 603, status: .badRequest)
            #expect(try await Self.fileCount(api) == 0)
        }
    }

    @Test func unknownTokensAndIncompleteRequestsAreRefused() async throws {
        try await Self.run { api, _ in
            expectError(try await api.post("/1.1/fileCallback", ["token": "nosuchtoken", "result": true]), code: 603)
            expectError(try await api.post("/1.1/fileCallback", ["token": "nosuchtoken", "result": false]), code: 603)
            expectError(try await api.post("/1.1/fileCallback", ["result": true]), code: 1, status: .badRequest)
            expectError(
                try await api.send(
                    .put, "/1.1/fileUploads/nosuchtoken", headers: Self.typed("text/plain", Headers.none), body: "x"),
                code: 603, status: .badRequest)
            expectError(try await api.post("/1.1/fileTokens", ["mime_type": "text/plain"]), code: 122)
            // fileTokens itself needs the app keys.
            #expect(try await api.post("/1.1/fileTokens", headers: Headers.none, ["name": "a.txt"]).status == .unauthorized)
            #expect(try await Self.fileCount(api) == 0)
        }
    }

    @Test func aTokensTypeIsTheOneAskedFor() async throws {
        try await Self.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "clip", "mime_type": "video/mp4"])
            #expect(issued["mime_type"] == "video/mp4")
            #expect(issued["name"] == "clip")
            _ = try await api.send(
                .put, try Self.path(issued["upload_url"]), headers: Self.typed("text/plain", Headers.none), body: "mp4")
            let download = try await api.get(try Self.path(issued["url"]), headers: Headers.none)
            #expect(download.header("Content-Type") == "video/mp4")
            let id = try #require(issued["objectId"]?.stringValue)
            #expect(try await api.get("/1.1/files/\(id)")["mime_type"] == "video/mp4")
        }
    }

    @Test func uploadTokensAreNeitherReadableByClientsNorStoredInClear() async throws {
        try await Self.run { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "secret.txt"])
            let token = try #require(issued["token"]?.stringValue)
            expectError(try await api.get("/1.1/classes/_FileToken"), code: 119, status: .forbidden)
            let records = try await api.get("/1.1/classes/_FileToken", headers: Headers.master)
            #expect(records.status == .ok && records.results.count == 1, "\(records)")
            #expect(!records.text.contains(token), "the token is stored hashed: \(records)")
        }
    }

    @Test func publicURLAndForwardedProtoShapeTheURLs() async throws {
        try await Self.run(configure: { $0.publicURL = "https://files.example.com" }) { api, _ in
            let reply = try await api.send(.post, "/1.1/files/a.txt", headers: Self.typed("text/plain"), body: "a")
            let key = try #require(reply["key"]?.stringValue)
            #expect(reply["url"] == .string("https://files.example.com/files/\(key)"))
            #expect(reply.header("Location") == "https://files.example.com/files/\(key)")
            let issued = try await api.post("/1.1/fileTokens", ["name": "b.txt"])
            let token = try #require(issued["token"]?.stringValue)
            #expect(issued["upload_url"] == .string("https://files.example.com/1.1/fileUploads/\(token)"))
            #expect(issued["url"] == .string("https://files.example.com/files/\(try #require(issued["key"]?.stringValue))"))
            // The path is served here whatever the address in front.
            #expect(try await api.get(try Self.path(reply["url"]), headers: Headers.none).text == "a")
        }
        try await Self.run { api, _ in
            let headers = Self.adding("X-Forwarded-Proto", "https", to: Self.typed("text/plain"))
            let reply = try await api.send(.post, "/1.1/files/a.txt", headers: headers, body: "a")
            #expect(reply["url"]?.stringValue?.hasPrefix("https://localhost/files/") == true, "\(reply)")
        }
    }

    // MARK: Downloads

    @Test func aDownloadDescribesItself() async throws {
        try await Self.run { api, _ in
            let file = try await Self.upload(api, "digits.txt", Self.digits, type: "text/plain; charset=utf-8")
            let key = try #require(file["key"]?.stringValue)
            let etag = "\"\(MD5.hex(Self.digits))\""
            for path in ["/files/\(key)", "/files/\(key)/any-name.txt"] {
                let whole = try await api.get(path, headers: Headers.none)
                #expect(whole.status == .ok && whole.text == Self.digits, "\(path): \(whole)")
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
            #expect(try await api.get("/files/\(key)", headers: wrongKeys).text == Self.digits)
        }
    }

    @Test func byteRangesServeTheAskedPart() async throws {
        try await Self.run { api, _ in
            let file = try await Self.upload(api, "digits.txt", Self.digits)
            let path = try Self.path(file["url"])
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
                let reply = try await api.get(path, headers: Self.adding("Range", item.range))
                #expect(reply.status == .partialContent, "\(item.range): \(reply)")
                #expect(reply.text == item.body, "\(item.range)")
                #expect(reply.header("Content-Range") == item.contentRange, "\(item.range)")
                #expect(reply.header("Content-Length") == String(item.body.utf8.count), "\(item.range)")
            }
            for range in ["bytes=10-", "bytes=99-120", "bytes=-0"] {
                let reply = try await api.get(path, headers: Self.adding("Range", range))
                #expect(reply.status == .rangeNotSatisfiable, "\(range): \(reply)")
                #expect(reply.header("Content-Range") == "bytes */10", "\(range)")
                #expect(reply.text.isEmpty, "\(range)")
            }
            // Ranges this server doesn't take are answered with the whole file.
            for range in ["bytes=1-2,4-5", "items=0-3", "bytes=5-2"] {
                let reply = try await api.get(path, headers: Self.adding("Range", range))
                #expect(reply.status == .ok && reply.text == Self.digits, "\(range): \(reply)")
            }
            let head = try await api.send(.head, path, headers: Self.adding("Range", "bytes=2-4"))
            #expect(head.status == .partialContent && head.text.isEmpty, "\(head)")
            #expect(head.header("Content-Range") == "bytes 2-4/10")
            #expect(head.header("Content-Length") == "3")
        }
    }

    @Test func validatorsAnswer304AndGuardRanges() async throws {
        try await Self.run { api, _ in
            let file = try await Self.upload(api, "digits.txt", Self.digits)
            let path = try Self.path(file["url"])
            let etag = try #require(try await api.get(path, headers: Headers.none).header("ETag"))
            #expect(etag == "\"\(MD5.hex(Self.digits))\"")

            let cached = try await api.get(path, headers: Self.adding("If-None-Match", etag))
            #expect(cached.status == .notModified && cached.text.isEmpty, "\(cached)")
            #expect(cached.header("ETag") == etag)
            #expect(try await api.get(path, headers: Self.adding("If-None-Match", "*")).status == .notModified)
            let stale = try await api.get(path, headers: Self.adding("If-None-Match", "\"0000\""))
            #expect(stale.status == .ok && stale.text == Self.digits)

            // If-Range: the range only for the version it was asked of.
            var headers = Self.adding("Range", "bytes=2-4")
            headers[.ifRange] = etag
            let same = try await api.get(path, headers: headers)
            #expect(same.status == .partialContent && same.text == "234", "\(same)")
            headers[.ifRange] = "\"0000\""
            let changed = try await api.get(path, headers: headers)
            #expect(changed.status == .ok && changed.text == Self.digits, "\(changed)")
        }
    }

    @Test func unknownAndForgedKeysAre404() async throws {
        try await Self.run { api, _ in
            let external = try await api.post("/1.1/files", ["name": "e.png", "url": "https://example.com/e.png"])
            #expect(external.status == .created)
            _ = try await Self.upload(api, "a.txt", "a")
            for key in ["nosuchkey", "nosuchkey.txt", ".incoming", "..", "%2E%2E%2Fdata.sqlite", "..%2F..%2Fetc%2Fpasswd"] {
                let reply = try await api.get("/files/\(key)", headers: Headers.none)
                #expect(reply.status == .notFound, "\(key): \(reply)")
            }
            expectError(try await api.get("/files/nosuchkey", headers: Headers.none), code: 404, status: .notFound)
            #expect(try await api.send(.head, "/files/nosuchkey", headers: Headers.none).status == .notFound)
        }
    }

    // MARK: Size limit

    @Test func aFileOverTheLimitIsRefusedAndNothingIsKept() async throws {
        try await Self.run(configure: { $0.maxFileSize = 10 }) { api, directory in
            let reply = try await api.send(.post, "/1.1/files/big.txt", headers: Self.typed("text/plain"), body: "01234567890")
            expectError(reply, code: 130, status: .contentTooLarge)
            #expect(try await Self.fileCount(api) == 0)
            #expect(try Self.storedKeys(directory).isEmpty)
            #expect(try Self.incoming(directory).isEmpty)
            // Exactly the limit is fine.
            let fits = try await Self.upload(api, "fits.txt", Self.digits)
            #expect(fits["metaData"]?["size"] == 10)
            #expect(try await Self.fileCount(api) == 1)
            #expect(try Self.storedKeys(directory) == [try #require(fits["key"]?.stringValue)])
        }
    }

    @Test func aLargeAnnouncedBodyIsRefusedBeforeItIsReadAndTheConnectionStaysUsable() async throws {
        try await Self.run(configure: { $0.maxFileSize = 10 }) { api, directory in
            let big = String(repeating: "b", count: 1024 * 1024)
            let reply = try await api.send(.post, "/1.1/files/big.txt", headers: Self.typed("text/plain"), body: big)
            expectError(reply, code: 130, status: .contentTooLarge)
            // The test client's one connection carries on.
            #expect(try await Self.upload(api, "small.txt", "small")["metaData"]?["size"] == 5)
            #expect(try await Self.fileCount(api) == 1)
            #expect(try Self.incoming(directory).isEmpty)
        }
    }

    @Test func aStreamedBodyWithoutLengthIsCutAtTheLimit() async throws {
        try await Self.run(configure: { $0.maxFileSize = 64 * 1024 }) { api, directory in
            // Chunked: the server learns the size only as the bytes arrive.
            func send(_ chunks: [ByteBuffer]) async throws -> (UInt, JSONValue?) {
                try await HTTPClient.withHTTPClient { client in
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(api.port)/1.1/files/stream.bin")
                    request.method = .POST
                    request.headers.add(name: "X-LC-Id", value: "app")
                    request.headers.add(name: "X-LC-Key", value: "key")
                    request.headers.add(name: "Content-Type", value: "application/octet-stream")
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
            #expect(try await Self.fileCount(api) == 0)
            #expect(try Self.storedKeys(directory).isEmpty)
            #expect(try Self.incoming(directory).isEmpty)
            // Exactly the limit, chunked, is stored.
            let (fitStatus, fit) = try await send(Array(repeating: chunk, count: 4))
            #expect(fitStatus == 201, "\(String(describing: fit))")
            #expect(fit?["metaData"]?["size"] == 65536)
        }
    }

    @Test func aTokenUploadOverTheLimitIsRefusedAndNothingIsKept() async throws {
        try await Self.run(configure: { $0.maxFileSize = 10 }) { api, directory in
            let issued = try await api.post("/1.1/fileTokens", ["name": "big.txt"])
            let id = try #require(issued["objectId"]?.stringValue)
            let put = try await api.send(
                .put, try Self.path(issued["upload_url"]), headers: Self.typed("text/plain", Headers.none), body: "01234567890")
            expectError(put, code: 130, status: .contentTooLarge)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            #expect(try await api.get(try Self.path(issued["url"]), headers: Headers.none).status == .notFound)
            #expect(try await Self.fileCount(api) == 0)
            #expect(try Self.storedKeys(directory).isEmpty)
            #expect(try Self.incoming(directory).isEmpty)
        }
    }

    // MARK: Environments

    @Test func stagingFilesWithADatabaseOfTheirOwnAreServed() async throws {
        let staging = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: staging) }
        try await Self.run(configure: { $0.stagingDataDirectory = staging }) { api, _ in
            let file = try await Self.upload(api, "staged.txt", "staged", headers: DeployTests.staging)
            let id = try #require(file["objectId"]?.stringValue)
            // The object lives with staging's data...
            #expect(try await api.get("/1.1/files/\(id)", headers: DeployTests.staging).status == .ok)
            expectError(try await api.get("/1.1/files/\(id)"), code: 101, status: .notFound)
            // ...and its URL, which carries no environment, still serves the bytes.
            let download = try await api.get(try Self.path(file["url"]), headers: Headers.none)
            #expect(download.status == .ok && download.text == "staged", "\(download)")

            // The token flow keeps the environment the token was asked in.
            let issued = try await api.post("/1.1/fileTokens", headers: DeployTests.staging, ["name": "t.txt"])
            let tokenId = try #require(issued["objectId"]?.stringValue)
            let put = try await api.send(
                .put, try Self.path(issued["upload_url"]), headers: Self.typed("text/plain", Headers.none), body: "tok")
            #expect(put.status == .ok, "\(put)")
            #expect(try await api.get("/1.1/files/\(tokenId)", headers: DeployTests.staging).status == .ok)
            let tokenDownload = try await api.get(try Self.path(issued["url"]), headers: Headers.none)
            #expect(tokenDownload.status == .ok && tokenDownload.text == "tok", "\(tokenDownload)")
        }
    }

    // MARK: _File as a class, File values

    @Test func fileObjectsAreQueryableButOnlyTheFileAPIWritesThem() async throws {
        try await Self.run { api, _ in
            let a = try await Self.upload(api, "a.txt", "a")
            _ = try await Self.upload(api, "b.txt", "bb")
            let key = try #require(a["key"]?.stringValue)
            let byKey = try await api.matching("_File", #"{"key":"\#(key)"}"#)
            #expect(byKey.count == 1)
            #expect(byKey.first?["objectId"] == a["objectId"] && byKey.first?["url"] == a["url"])
            #expect(try await api.matching("_File", #"{"name":"b.txt"}"#).first?["metaData"]?["size"] == 2)
            #expect(try await api.matching("_File", #"{"metaData.size":{"$gte":1}}"#).count == 2)

            let id = try #require(a["objectId"]?.stringValue)
            expectError(try await api.post("/1.1/classes/_File", ["name": "forged", "url": "http://x/y"]), code: 119)
            expectError(try await api.put("/1.1/classes/_File/\(id)", ["name": "renamed"]), code: 119)
            expectError(try await api.delete("/1.1/classes/_File/\(id)"), code: 119)
            #expect(try await Self.fileCount(api) == 2)
            #expect(try await api.get("/1.1/files/\(id)")["name"] == "a.txt")
        }
    }

    @Test func fileValuesAreExpandedWhenIncluded() async throws {
        try await Self.run { api, _ in
            let image = try await Self.upload(api, "pic.png", "img", type: "image/png")
            let other = try await Self.upload(api, "more.png", "more", type: "image/png")
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
            #expect(try await api.get(try Self.path(shown["url"]), headers: Headers.none).text == "img")
        }
    }

    // MARK: Hooks (Swift)

    @Test func swiftBeforeSaveFileSeesTheFileAndMayReshapeIt() async throws {
        let seen = Recorded<JSONValue>()
        var functions = FunctionRegistry()
        functions.hooks.beforeSaveFile { request in
            seen.record(
                .object([
                    "name": request.object["name"] ?? .null, "mime_type": request.object["mime_type"] ?? .null,
                    "metaData": request.object["metaData"] ?? .null, "size": request.object["size"] ?? .null,
                    "user": request.user?["objectId"] ?? .null,
                ]))
            request.object["name"] = "renamed.txt"
            request.object["metaData"] = ["checked": true]
        }
        try await Self.run(functions: functions) { api, _ in
            let ada = try await Self.signUp(api, "ada")
            let file = try await Self.upload(api, "original.md", "# hi", type: "text/markdown", headers: ada.session)
            #expect(file["name"] == "renamed.txt")
            #expect(file["key"]?.stringValue?.hasSuffix(".txt") == true, "the key follows the new name: \(file)")
            #expect(file["mime_type"] == "text/markdown")
            #expect(file["metaData"]?["checked"] == true)
            #expect(file["metaData"]?["size"] == 4)
            #expect(file["metaData"]?["owner"] == .string(ada.id))
            let download = try await api.get(try Self.path(file["url"]), headers: Headers.none)
            #expect(download.text == "# hi")
            #expect(
                seen.all == [
                    [
                        "name": "original.md", "mime_type": "text/markdown", "metaData": [:], "size": 4,
                        "user": .string(ada.id),
                    ]
                ])
        }
    }

    @Test func swiftBeforeSaveFileRefusesAndNothingIsStored() async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeSaveFile { request in
            if request.object["name"]?.stringValue?.hasSuffix(".exe") == true {
                throw HookError(code: 142, message: "No executables.")
            }
            if request.object["name"] == "slash.txt" { request.object["name"] = "a/b" }
        }
        try await Self.run(functions: functions) { api, directory in
            let refused = try await api.send(.post, "/1.1/files/virus.exe", headers: Self.typed("text/plain"), body: "MZ")
            expectError(refused, code: 142)
            #expect(refused["error"] == "No executables.")
            // The token flow asks when the token is issued, the external form when it is posted.
            let token = try await api.post("/1.1/fileTokens", ["name": "virus.exe"])
            expectError(token, code: 142)
            #expect(token["error"] == "No executables.")
            let external = try await api.post("/1.1/files", ["name": "virus.exe", "url": "https://example.com/v.exe"])
            expectError(external, code: 142)
            // A hook can't rename a file to an invalid name.
            expectError(try await api.send(.post, "/1.1/files/slash.txt", headers: Self.typed("text/plain"), body: "s"), code: 122)
            #expect(try await Self.fileCount(api) == 0)
            #expect(try Self.storedKeys(directory).isEmpty)
            #expect(try Self.incoming(directory).isEmpty)
            // Other files are fine.
            #expect(try await Self.upload(api, "fine.txt", "ok")["name"] == "fine.txt")
        }
    }

    @Test func swiftAfterSaveFileSeesTheStoredFileAndTheBeforeHooksContext() async throws {
        let seen = Recorded<String>()
        let failures = Recorded<HookDispatcher.Failure>()
        var functions = FunctionRegistry()
        functions.hooks.beforeSaveFile { request in
            request.context["from"] = .string("before " + (request.object["name"]?.stringValue ?? ""))
        }
        functions.hooks.afterSaveFile { request in
            let id = request.object["objectId"]?.stringValue ?? "-"
            let url = request.object["url"]?.stringValue ?? "-"
            let size = request.object["metaData"]?["size"]?.intValue ?? -1
            seen.record("\(request.context["from"]?.stringValue ?? "-") \(id) \(url) \(size)")
            if request.object["name"] == "fails.txt" { throw HookError(message: "after hooks can't refuse") }
        }
        try await Self.run(functions: functions, configure: { $0.onAfterHookFailure = { failures.record($0) } }) { api, _ in
            let file = try await Self.upload(api, "a.txt", "abc")
            let id = try #require(file["objectId"]?.stringValue)
            let url = try #require(file["url"]?.stringValue)
            #expect(seen.all == ["before a.txt \(id) \(url) 3"])

            // The token flow: the before-hook ran at issue; its context reaches the after-hook at the PUT.
            let issued = try await api.post("/1.1/fileTokens", ["name": "t.txt"])
            let tokenId = try #require(issued["objectId"]?.stringValue)
            #expect(seen.all.count == 1, "nothing is saved before the bytes arrive")
            _ = try await api.send(
                .put, try Self.path(issued["upload_url"]), headers: Self.typed("text/plain", Headers.none), body: "tt")
            #expect(seen.all.last == "before t.txt \(tokenId) \(try #require(issued["url"]?.stringValue)) 2", "\(seen.all)")

            // A failing after-hook leaves the file stored.
            let kept = try await Self.upload(api, "fails.txt", "f")
            #expect(try await api.get(try Self.path(kept["url"]), headers: Headers.none).text == "f")
            #expect(failures.all.map(\.kind) == [.afterSaveFile])
        }
    }

    @Test func swiftDeleteHooksMayKeepAFileAndRunAroundItsRemoval() async throws {
        let events = Recorded<String>()
        let filesDirectory = Recorded<String>()
        var functions = FunctionRegistry()
        @Sendable func onDisk(_ request: HookRequest) -> Bool {
            guard let directory = filesDirectory.all.first, let key = request.object["key"]?.stringValue else { return false }
            return FileManager.default.fileExists(atPath: directory + "/files/" + key)
        }
        functions.hooks.beforeDeleteFile { request in
            let name = request.object["name"]?.stringValue ?? "-"
            events.record("beforeDelete \(name) onDisk=\(onDisk(request))")
            if name == "keep.txt" { throw HookError(code: 142, message: "Kept.") }
        }
        functions.hooks.afterDeleteFile { request in
            events.record("afterDelete \(request.object["name"]?.stringValue ?? "-") onDisk=\(onDisk(request))")
        }
        try await Self.run(functions: functions) { api, directory in
            filesDirectory.record(directory)
            let keep = try await Self.upload(api, "keep.txt", "k")
            let keepId = try #require(keep["objectId"]?.stringValue)
            let refused = try await api.delete("/1.1/files/\(keepId)", headers: Headers.master)
            expectError(refused, code: 142)
            #expect(refused["error"] == "Kept.")
            #expect(try await api.get("/1.1/files/\(keepId)").status == .ok)
            #expect(try await api.get(try Self.path(keep["url"]), headers: Headers.none).text == "k")

            let drop = try await Self.upload(api, "drop.txt", "d")
            let dropId = try #require(drop["objectId"]?.stringValue)
            #expect(try await api.delete("/1.1/files/\(dropId)", headers: Headers.master).status == .ok)
            #expect(try await api.get(try Self.path(drop["url"]), headers: Headers.none).status == .notFound)
            #expect(
                events.all == [
                    "beforeDelete keep.txt onDisk=true", "beforeDelete drop.txt onDisk=true", "afterDelete drop.txt onDisk=false",
                ])
        }
    }

    // MARK: Hooks (JavaScript)

    @Test func javaScriptFileHooksSeeRenameRefuseAndFollowDeletes() async throws {
        let code = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: code) }
        let script = """
            AV.Cloud.beforeSaveFile(function (request) {
              var file = request.file;
              if (file.name === 'secret.txt') throw new AV.Cloud.Error('Not that one.', { code: 142 });
              file.metaData.seen = file.name + ' ' + file.mime_type + ' ' + file.size;
              file.name = 'js-' + file.name;
            });
            AV.Cloud.afterSaveFile(function (request) {
              return new AV.Object('FileLog').save({ event: 'afterSave', name: request.file.name,
                file: request.file.objectId, url: request.file.url });
            });
            AV.Cloud.beforeDeleteFile(function (request) {
              if (request.file.name === 'js-keep.txt') throw new AV.Cloud.Error('Files stay.', { code: 142 });
            });
            AV.Cloud.afterDeleteFile(function (request) {
              return new AV.Object('FileLog').save({ event: 'afterDelete', name: request.file.name,
                file: request.file.objectId });
            });
            """
        try script.write(toFile: code + "/files.js", atomically: true, encoding: .utf8)
        try await Self.run(functionsDirectory: code) { api, directory in
            let saved = try await Self.upload(api, "a.txt", "abcd")
            #expect(saved["name"] == "js-a.txt")
            #expect(saved["metaData"]?["seen"] == "a.txt text/plain 4", "\(saved)")
            #expect(try await api.get(try Self.path(saved["url"]), headers: Headers.none).text == "abcd")
            let id = try #require(saved["objectId"]?.stringValue)

            let refused = try await api.send(.post, "/1.1/files/secret.txt", headers: Self.typed("text/plain"), body: "s")
            expectError(refused, code: 142)
            #expect(refused["error"] == "Not that one.")
            #expect(try await Self.fileCount(api) == 1)
            #expect(try Self.incoming(directory).isEmpty)

            let keep = try await Self.upload(api, "keep.txt", "k")
            let keepId = try #require(keep["objectId"]?.stringValue)
            let kept = try await api.delete("/1.1/files/\(keepId)", headers: Headers.master)
            expectError(kept, code: 142)
            #expect(kept["error"] == "Files stay.")
            #expect(try await api.get(try Self.path(keep["url"]), headers: Headers.none).text == "k")

            #expect(try await api.delete("/1.1/files/\(id)", headers: Headers.master).status == .ok)
            #expect(try await api.get(try Self.path(saved["url"]), headers: Headers.none).status == .notFound)

            let logs = try await api.results("FileLog", ["order": "createdAt"])
            let summary = logs.map { "\($0["event"]?.stringValue ?? "-") \($0["name"]?.stringValue ?? "-")" }
            #expect(summary == ["afterSave js-a.txt", "afterSave js-keep.txt", "afterDelete js-a.txt"], "\(logs)")
            #expect(logs.first?["file"] == .string(id) && logs.first?["url"] == saved["url"], "\(logs)")
            #expect(logs.last?["file"] == .string(id))
        }
    }
}
