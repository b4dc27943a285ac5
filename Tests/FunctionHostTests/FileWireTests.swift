import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import JSON
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// The file requests of the official SDKs as they send them (JS `av-core.js` `_fileToken`,
/// Python `file_.py`, PHP `File.php`, iOS per ios-sdk-wire.md §9), File values in objects, and
/// the attacks on each new path.
@Suite struct FileWireTests {
    /// The JS, Python and PHP SDKs' `fileTokens` body for a file without an ACL.
    static func tokenBody(_ name: String, size: Int? = 5, extra: [String: JSONValue] = [:]) -> JSONValue {
        var metaData: [String: JSONValue] = ["owner": "unknown"]
        if let size { metaData["size"] = .int(Int64(size)) }
        var body: [String: JSONValue] = [
            "name": .string(name), "ACL": .null, "mime_type": "text/plain", "metaData": .object(metaData),
            "keep_file_name": .null, "key": .null,
        ]
        body.merge(extra) { _, new in new }
        return .object(body)
    }

    /// `fileTokens`, then the s3 PUT of `bytes`: the file's id and url.
    static func upload(
        _ api: API, _ name: String, _ bytes: String = "hello", headers: HTTPFields = Headers.client,
        extra: [String: JSONValue] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (id: String, url: String, key: String) {
        let issued = try await api.post("/1.1/fileTokens", headers: headers, tokenBody(name, size: bytes.utf8.count, extra: extra))
        #expect(issued.status == .ok && issued["provider"] == "s3", "\(issued)", sourceLocation: sourceLocation)
        let put = try await api.send(
            .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: bytes)
        #expect(put.status == .ok, "\(put)", sourceLocation: sourceLocation)
        return (try #require(issued.objectId), try #require(issued["url"]?.stringValue), try #require(issued["key"]?.stringValue))
    }

    @Test func aNullACLIsNoACLOnTokensDirectUploadsAndTheFile() async throws {
        try await FileFixture.run { api, _ in
            let file = try await Self.upload(api, "null.txt")
            let stored = try await api.get("/1.1/files/\(file.id)")
            #expect(stored.status == .ok && stored["name"] == "null.txt", "\(stored)")
            #expect(try await api.get(try FileFixture.path(.string(file.url)), headers: Headers.none).text == "hello")
            // The external file of `POST /files` and the JS SDK's JSON to `/files/{name}`.
            let external = try await api.post(
                "/1.1/files", ["name": "a.jpg", "url": "https://example.com/a.jpg", "ACL": .null, "metaData": ["__source": "external"]])
            #expect(external.status == .created, "\(external)")
            let json = try await api.post(
                "/1.1/files/b.jpg", ["url": "https://example.com/b.jpg", "ACL": .null, "metaData": ["__source": "external"]])
            #expect(json.status == .created, "\(json)")
        }
    }

    @Test func aNullACLOnObjectsTakesTheClassDefault() async throws {
        try await FileFixture.run(configure: { $0.defaultACLs = ["Diary": ["creator": ["read": true, "write": true]]] }) { api, _ in
            let ada = try await FileFixture.signUp(api, "ada")
            let diary = try await api.create("Diary", ["text": "x", "ACL": .null], headers: ada.session)
            #expect(try await api.fetch("Diary", diary, headers: Headers.master)["ACL"] == .object([ada.id: ["read": true, "write": true]]))
            #expect(try await api.fetch("Diary", diary) == [:], "the default hides it from others")
            let note = try await api.create("Note", ["text": "x", "ACL": .null])
            #expect(try await api.fetch("Note", note, headers: Headers.master)["ACL"] == ["*": ["read": true, "write": true]])
            // On an update it changes nothing.
            #expect(try await api.put("/1.1/classes/Diary/\(diary)", headers: ada.session, ["ACL": .null, "text": "y"]).status == .ok)
            #expect(try await api.fetch("Diary", diary, headers: ada.session)["text"] == "y")
            #expect(try await api.fetch("Diary", diary) == [:])
        }
    }

    @Test func fileValuesAreStoredByIdAndAnsweredFromTheirFile() async throws {
        try await FileFixture.run { api, _ in
            let file = try await Self.upload(api, "resume.txt", "leancloud")
            let forms: [JSONValue] = [
                ["__type": "File", "id": .string(file.id)],  // REST docs, Objective-C, PHP
                ["__type": "File", "objectId": .string(file.id), "url": "https://evil.example/x"],  // JS (url not kept)
                pointer("_File", file.id),  // Swift
            ]
            for form in forms {
                let id = try await api.create("Job", ["resume": form, "list": [form]])
                let fetched = try await api.fetch("Job", id)
                for value in [fetched["resume"], fetched["list"]?.arrayValue?.first] {
                    #expect(value?["__type"] == "File" && value?["objectId"] == .string(file.id), "\(fetched)")
                    #expect(value?["url"] == .string(file.url) && value?["name"] == "resume.txt", "\(fetched)")
                    #expect(value?["mime_type"] == "text/plain" && value?["metaData"]?["size"] == 9, "\(fetched)")
                }
            }
            // The JS SDK's fetchWhenSave answer holds the file whole, so the SDK keeps its url.
            let saved = try await api.post("/1.1/classes/Job?fetchWhenSave=true", ["resume": forms[1]])
            #expect(saved["resume"]?["url"] == .string(file.url) && saved["resume"]?["name"] == "resume.txt", "\(saved)")
            let savedId = try #require(saved.objectId)
            let updated = try await api.put("/1.1/classes/Job/\(savedId)?fetchWhenSave=true", ["resume": forms[0]])
            #expect(updated["resume"]?["url"] == .string(file.url), "\(updated)")
            let found = try await api.results("Job", ["where": #"{"resume":{"__type":"File","id":"\#(file.id)"}}"#])
            #expect(found.count == 4 && found.allSatisfy { $0["resume"]?["url"] == .string(file.url) }, "\(found)")
            let post = try await api.create("Post", ["job": pointer("Job", try #require(found.first?["objectId"]?.stringValue))])
            let included = try await api.fetch("Post", post, ["include": "job"])
            #expect(included["job"]?["resume"]?["url"] == .string(file.url), "\(included)")
        }
    }

    @Test func attackAFileValueNeverRevealsAPrivateFilesURL() async throws {
        try await FileFixture.run { api, _ in
            let ada = try await FileFixture.signUp(api, "ada")
            let eve = try await FileFixture.signUp(api, "eve")
            let secret = try await Self.upload(
                api, "secret.txt", headers: ada.session, extra: ["ACL": .object([ada.id: ["read": true, "write": true]])])
            // Eve names Ada's file (and guesses a url) in her own public object.
            let job = try await api.create(
                "Job", ["resume": ["__type": "File", "id": .string(secret.id), "url": .string(secret.url)]], headers: eve.session)
            let shape: JSONValue = ["__type": "File", "objectId": .string(secret.id)]
            #expect(try await api.fetch("Job", job, headers: eve.session)["resume"] == shape)
            #expect(try await api.results("Job").first?["resume"] == shape)
            #expect(try await api.fetch("Job", job, ["include": "resume"], headers: eve.session)["resume"] == shape)
            // Ada, who may read her file, gets it whole.
            #expect(try await api.fetch("Job", job, headers: ada.session)["resume"]?["url"] == .string(secret.url))
        }
    }

    @Test func keepFileNameEndsTheURLWithTheEncodedName() async throws {
        try await FileFixture.run { api, _ in
            let file = try await Self.upload(api, "中文.txt", extra: ["keep_file_name": true])
            #expect(file.url.hasSuffix("/%E4%B8%AD%E6%96%87.txt") && !file.key.contains("/"), "\(file)")
            let stored = try await api.get("/1.1/files/\(file.id)")
            #expect(stored["url"] == .string(file.url) && stored["name"] == "中文.txt", "\(stored)")
            // Still percent-encoded: the request line carries only ASCII.
            let start = try #require(file.url.range(of: "/files/")).lowerBound
            let download = try await api.get(String(file.url[start...]), headers: Headers.none)
            #expect(download.status == .ok && download.text == "hello", "\(download)")
        }
    }

    @Test func attackAKeyIsTheMastersChoiceAndNeverReplacesAFile() async throws {
        try await FileFixture.run { api, _ in
            let chosen = try await Self.upload(api, "a.txt", "first", headers: Headers.master, extra: ["key": "avatars-1.txt"])
            #expect(chosen.key == "avatars-1.txt" && chosen.url.hasSuffix("/files/avatars-1.txt"), "\(chosen)")
            // A client's key is refused, as LeanCloud refuses it (the wire test is SDKErrorWireTests).
            let client = try await api.post("/1.1/fileTokens", Self.tokenBody("b.txt", extra: ["key": "avatars-1.txt"]))
            expectError(client, code: 1)
            // Not even the master key overwrites a stored file, or one a token already promised.
            let again = try await api.post("/1.1/fileTokens", headers: Headers.master, Self.tokenBody("c.txt", extra: ["key": "avatars-1.txt"]))
            expectError(again, code: 137)
            let promised = try await api.post("/1.1/fileTokens", headers: Headers.master, Self.tokenBody("d.txt", extra: ["key": "d.txt"]))
            #expect(promised.status == .ok, "\(promised)")
            expectError(try await api.post("/1.1/fileTokens", headers: Headers.master, Self.tokenBody("e.txt", extra: ["key": "d.txt"])), code: 137)
            for bad in ["../x", ".hidden", "a/b.txt", ""] where !bad.isEmpty {
                expectError(try await api.post("/1.1/fileTokens", headers: Headers.master, Self.tokenBody("f.txt", extra: ["key": .string(bad)])), code: 1)
            }
            #expect(try await api.get("/files/avatars-1.txt", headers: Headers.none).text == "first")
        }
    }

    @Test func theLowerCaseClassPathFetchesAndDeletesLikeFiles() async throws {
        try await FileFixture.run(configure: { $0.ownersMayDeleteFiles = true }) { api, directory in
            let ada = try await FileFixture.signUp(api, "ada")
            let eve = try await FileFixture.signUp(api, "eve")
            let file = try await Self.upload(
                api, "mine.txt", headers: ada.session, extra: ["ACL": .object([ada.id: ["read": true, "write": true]])])
            #expect(try await api.get("/1.1/classes/_file/\(file.id)", headers: ada.session)["url"] == .string(file.url))
            // Eve can neither see nor delete it, by either path.
            #expect(try await api.get("/1.1/classes/_file/\(file.id)", headers: eve.session).json == [:])
            for path in ["/1.1/classes/_file/\(file.id)", "/1.1/classes/_File/\(file.id)"] {
                let refused = try await api.delete(path, headers: eve.session)
                #expect((400..<500).contains(refused.status.code), "\(refused)")
            }
            #expect(try FileFixture.storedKeys(directory) == [file.key])
            // Its owner deletes it, bytes and all.
            #expect(try await api.delete("/1.1/classes/_file/\(file.id)", headers: ada.session).status == .ok)
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            expectError(try await api.get("/1.1/files/\(file.id)", headers: Headers.master), code: 101)
        }
    }

    @Test func theObjectiveCBatchDeleteOfFilesDeletesFilesWithTheirRights() async throws {
        try await FileFixture.run { api, directory in
            let ada = try await FileFixture.signUp(api, "ada")
            let file = try await Self.upload(api, "batch.txt", headers: ada.session)
            let batch: JSONValue = ["requests": [["method": "DELETE", "path": .string("/1.1/files/\(file.id)")]]]
            // Not its owner's to delete here (--owners-delete-files is off), nor anyone else's.
            let refused = try await api.post("/1.1/batch", headers: ada.session, batch)
            #expect(refused.status == .ok && refused.json?.arrayValue?.first?["error"]?["code"] == 403, "\(refused)")
            #expect(try FileFixture.storedKeys(directory) == [file.key])
            let done = try await api.post("/1.1/batch", headers: Headers.master, batch)
            #expect(done.json == [["success": [:]]], "\(done)")
            #expect(try FileFixture.storedKeys(directory).isEmpty)
        }
    }

    @Test func aTokenWithoutASizeUploadsAsAFormThroughTheSameURL() async throws {
        try await FileFixture.run { api, _ in
            // The JS SDK streaming a file: no size, so no PUT; the form POST of its qcloud uploader.
            let issued = try await api.post("/1.1/fileTokens", Self.tokenBody("stream-test.js", size: nil))
            #expect(issued.status == .ok && issued["provider"] == "qcloud", "\(issued)")
            let token = try #require(issued["token"]?.stringValue)
            let boundary = "----formdata-undici-0123"
            let form = "--\(boundary)\r\nContent-Disposition: form-data; name=\"op\"\r\n\r\nupload\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"fileContent\"; filename=\"stream-test.js\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\nline one\r\n--not-the-end\r\n--\(boundary)--\r\n"
            let path = try FileFixture.path(issued["upload_url"]) + "?sign=\(token)"
            let posted = try await api.send(
                .post, path, headers: FileFixture.typed("multipart/form-data; boundary=\(boundary)", Headers.none), body: form)
            #expect(posted.status == .ok && posted["objectId"] == issued["objectId"] && posted["code"] == 0, "\(posted)")
            let download = try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none)
            #expect(download.text == "line one\r\n--not-the-end", "\(download)")
            // A form without a file part stores nothing, and the token stays usable.
            let empty = "--\(boundary)\r\nContent-Disposition: form-data; name=\"op\"\r\n\r\nupload\r\n--\(boundary)--\r\n"
            let other = try await api.post("/1.1/fileTokens", Self.tokenBody("x.txt", size: nil))
            let refused = try await api.send(
                .post, try FileFixture.path(other["upload_url"]), headers: FileFixture.typed("multipart/form-data; boundary=\(boundary)", Headers.none),
                body: empty)
            expectError(refused, code: 1)
            // The token is the credential: a made-up one uploads nothing.
            expectError(
                try await api.send(
                    .post, "/1.1/fileUploads/0123456789abcdef", headers: FileFixture.typed("multipart/form-data; boundary=\(boundary)", Headers.none),
                    body: form), code: 603)
        }
    }

    /// POSTs a form to an upload path in chunks of `chunkSize` bytes, as a stream: status and JSON.
    static func sendForm(_ api: API, _ path: String, boundary: String, _ form: [UInt8], chunkSize: Int) async throws -> (UInt, JSONValue?) {
        try await HTTPClient.withHTTPClient { client in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(api.port)\(path)")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
            let stream = AsyncStream<ByteBuffer> { continuation in
                for start in stride(from: 0, to: form.count, by: chunkSize) {
                    continuation.yield(ByteBuffer(bytes: form[start..<min(start + chunkSize, form.count)]))
                }
                continuation.finish()
            }
            request.body = .stream(stream, length: .unknown)
            let response = try await client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (response.status.code, try? JSONValue(parsing: body.readableBytesView))
        }
    }

    @Test func aFormStreamedInSmallChunksKeepsTheFileExact() async throws {
        // Chunks as they arrive on a connection, which the in-process client doesn't cut.
        try await FileFixture.run(transport: .socket) { api, directory in
            let boundary = "b0undary"
            let content = (0..<3000).map { "\($0 % 10)" }.joined() + "\r\n--b0undar"
            let form = Array(
                ("preamble\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nt\r\n"
                    + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"k\"\r\n\r\n\(content)\r\n"
                    + "--\(boundary)--\r\n").utf8)
            for chunkSize in [1, 3, 7, 4096] {
                let issued = try await api.post("/1.1/fileTokens", Self.tokenBody("chunks.txt", size: nil))
                let (status, json) = try await Self.sendForm(api, try FileFixture.path(issued["upload_url"]), boundary: boundary, form, chunkSize: chunkSize)
                #expect(status == 200 && json?["objectId"] == issued["objectId"], "\(chunkSize): \(String(describing: json))")
                #expect(try await api.get(try FileFixture.path(issued["url"]), headers: Headers.none).text == content, "\(chunkSize)")
            }
            // Attack: parts besides the file can't stream without end; nothing is kept.
            let flood = Array(("--\(boundary)\r\nContent-Disposition: form-data; name=\"op\"\r\n\r\n" + String(repeating: "x", count: 100_000)).utf8)
            let issued = try await api.post("/1.1/fileTokens", Self.tokenBody("flood.txt", size: nil))
            let (status, json) = try await Self.sendForm(api, try FileFixture.path(issued["upload_url"]), boundary: boundary, flood, chunkSize: 8192)
            #expect(status == 400 && json?["code"] == 1, "\(String(describing: json))")
            #expect(try FileFixture.storedKeys(directory).count == 4 && FileFixture.incoming(directory).isEmpty)
        }
    }
}
