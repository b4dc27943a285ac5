import Foundation
import JSON
import Testing

@testable import DataAPI

/// The layers an import reads through: gzip, tar, lines, file names, and the decoding of one
/// exported object. Archives are made by the system's own `tar` and `gzip`, not by us.
@Suite struct ExportReadingTests {
    /// A temporary folder with `files` (relative path → text) in it, removed by the caller.
    static func folder(_ files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ExportReading-\(UUID().uuidString)").path
        for (path, text) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return root
    }

    /// Runs a system command; fails the test when it fails.
    static func run(_ arguments: [String], in directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(arguments)")
    }

    /// Every line of a byte source.
    static func lines(_ source: any ByteSource) throws -> [String] {
        let reader = LineReader(source)
        var lines: [String] = []
        while let line = try reader.next() { lines.append(String(decoding: line, as: UTF8.self)) }
        return lines
    }

    @Test func linesEndWithLFOrCRLFLoseABOMAndNeedNoFinalNewline() throws {
        let text = "\u{FEFF}first\r\nsecond\n\nlast"
        #expect(try Self.lines(MemoryBytes(Array(text.utf8))) == ["first", "second", "", "last"])
        #expect(try Self.lines(MemoryBytes([])) == [])
    }

    @Test func aLineSplitAcrossChunksIsWhole() throws {
        let root = try Self.folder(["a.txt": String(repeating: "x", count: 3000) + "\nshort\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let lines = try Self.lines(FileBytes(path: root + "/a.txt", chunkSize: 7))
        #expect(lines.map(\.count) == [3000, 5])
    }

    @Test func aTarGzArchiveIsReadMemberByMemberWithLongNames() throws {
        let longName = String(repeating: "d", count: 120) + "/Post.0.jsonl"
        let root = try Self.folder([
            "export/_User.0.jsonl": "{\"objectId\":\"u1\"}\n",
            "export/" + longName: String(repeating: "{\"n\":1}\n", count: 20_000),
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.run(["tar", "czf", "export.tar.gz", "export"], in: root)
        let archive = TarArchive(try GzipBytes(FileBytes(path: root + "/export.tar.gz", chunkSize: 4096)))
        var seen: [String: Int] = [:]
        while let entry = try archive.nextEntry() {
            seen[entry.path] = try Self.lines(archive).count
        }
        #expect(seen == ["export/_User.0.jsonl": 1, "export/" + longName: 20_000])
    }

    @Test func concatenatedGzipMembersReadAsOneAndATruncatedArchiveIsAnError() throws {
        let root = try Self.folder(["a": "one\n", "b": "two\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.run(["sh", "-c", "gzip -c a > ab.gz && gzip -c b >> ab.gz"], in: root)
        #expect(try Self.lines(GzipBytes(FileBytes(path: root + "/ab.gz"))) == ["one", "two"])

        try Self.run(["sh", "-c", "head -c 10000 /dev/urandom > big && gzip -c big | head -c 2000 > cut.gz"], in: root)
        #expect(throws: DataAPIError.self) { _ = try Self.lines(GzipBytes(FileBytes(path: root + "/cut.gz"))) }
        try Self.run(["sh", "-c", "printf 'not gzip at all' > bad.gz"], in: root)
        #expect(throws: DataAPIError.self) { _ = try Self.lines(GzipBytes(FileBytes(path: root + "/bad.gz"))) }
    }

    @Test func fileNamesSayWhatTheyHold() {
        #expect(ExportFile(path: "x/Post.0.jsonl") == .objects(className: "Post"))
        #expect(ExportFile(path: "Post.12.jsonl") == .objects(className: "Post"))
        #expect(ExportFile(path: "_User.json") == .objects(className: "_User"))
        #expect(ExportFile(path: "_Join:users:_Role.0.jsonl") == .relation(ownerClass: "_Role", field: "users"))
        #expect(ExportFile(path: "Post_schema.json") == .schema(className: "Post"))
        #expect(ExportFile(path: "Post_all.json") == .schema(className: "Post"))
        #expect(ExportFile(path: "Post.csv") == .other(reason: "CSV files are not read: export the class as JSON"))
        #expect(ExportFile(path: "part-00000") == .other(reason: "not a class name"))
        #expect(ExportFile.headerClass(Array(#"#filetype:JSON-streaming {"type":"Class","class":"Todo"}"#.utf8)[...]) == "Todo")
    }

    @Test func anExportedObjectKeepsItsIdDatesACLAndTypedValues() throws {
        let line = #"""
            {"objectId":"5f3dea7b7a53400006b13886","createdAt":"2020-08-20T03:10:19.512Z","updatedAt":"2021-01-04T09:00:00.000Z","ACL":{"*":{"read":true}},"publishedAt":{"__type":"Date","iso":"2020-08-21T00:00:00.000Z"},"cover":{"__type":"File","id":"f1"},"location":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4},"gone":null}
            """#
        let object = try ExportDecoder().decode(try JSONValue(parsing: Array(line.utf8)), className: "Post", line: Array(line.utf8))
        #expect(object.objectId == "5f3dea7b7a53400006b13886")
        #expect(object.createdAt == "2020-08-20T03:10:19.512Z" && object.updatedAt == "2021-01-04T09:00:00.000Z")
        #expect(object.fields["ACL"] == ["*": ["read": true]])
        #expect(object.fields["publishedAt"]?.typeTag == "Date")
        #expect(object.fields["cover"]?.typeTag == "File")
        #expect(object.fields["gone"] == nil)
    }

    @Test func aLineWithoutAnIdGetsTheSameIdEveryTime() throws {
        let line = Array(#"{"title":"no id"}"#.utf8)
        let first = try ExportDecoder().decode(try JSONValue(parsing: line), className: "Post", line: line)
        let second = try ExportDecoder().decode(try JSONValue(parsing: line), className: "Post", line: line)
        #expect(first.objectId == second.objectId && first.objectId.count == 24)
    }

    @Test func badObjectsAreRefusedWithAReason() throws {
        func refusal(_ text: String, className: String = "Post") -> DataAPIError? {
            do {
                _ = try ExportDecoder().decode(try JSONValue(parsing: Array(text.utf8)), className: className, line: Array(text.utf8))
                return nil
            } catch {
                return error as? DataAPIError
            }
        }
        #expect(refusal("[1,2]")?.code == .malformedJSON)
        #expect(refusal(#"{"objectId":7}"#)?.code == .missingObjectId)
        #expect(refusal(#"{"createdAt":"yesterday"}"#)?.code == .incorrectType)
        #expect(refusal(#"{"bad$key":1}"#)?.code == .invalidKeyName)
        #expect(refusal(#"{"username":"x","password":"clear text"}"#, className: "_User")?.code == .incorrectType)
    }

    /// LeanCloud's published vector: salt, the password `password`, and the exported hash.
    static let salt = "h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2"
    static let exported = "tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug=="

    @Test func leanCloudsPublishedPasswordVectorVerifies() async {
        #expect(PasswordHasher.leanCloudDigest("password", salt: Self.salt).base64EncodedString() == Self.exported)
        let stored = PasswordHasher.leanCloudHash(salt: Self.salt, hash: Self.exported)
        #expect(await PasswordHasher.verify("password", against: stored))
        #expect(await !PasswordHasher.verify("Password", against: stored))
        #expect(await !PasswordHasher.verify("", against: stored))
        #expect(PasswordHasher.isHash(stored) && PasswordHasher.needsRehash(stored))
        #expect(await !PasswordHasher.needsRehash(PasswordHasher.hash("password")))
    }

    /// A hash made with 511 or 513 re-hashes (the off-by-one an exporter could make) never
    /// verifies: only LeanCloud's 512 does.
    @Test(arguments: [511, 513])
    func otherRoundCountsDoNotVerify(rehashes: Int) async {
        let digest = PasswordHasher.leanCloudDigest("password", salt: Self.salt, rehashes: rehashes).base64EncodedString()
        #expect(digest != Self.exported)
        #expect(await !PasswordHasher.verify("password", against: PasswordHasher.leanCloudHash(salt: Self.salt, hash: digest)))
    }

    @Test func passwordBeforeSaltDoesNotMatchTheVector() {
        // SHA-512 of password then salt: the order LeanCloud does not use.
        let swapped = PasswordHasher.leanCloudDigest(Self.salt, salt: "password")
        #expect(swapped.base64EncodedString() != Self.exported)
    }
}
