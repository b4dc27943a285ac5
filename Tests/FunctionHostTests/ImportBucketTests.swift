import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOCore
import NIOHTTP1
import S3Storage
import TestSupport
import Testing

/// `functionhost import --download-files` into a host that keeps its files in a bucket: each
/// `_File`'s bytes fetched from a stand-in for LeanCloud's file domain straight into the bucket
/// (moto), under the same keys, urls on `--files-url`; a run the domain interrupts is finished
/// by running it again, which fetches only what is missing.
@Suite struct ImportBucketTests {
    /// The export's files: LeanCloud-like keys, text of a few sizes.
    static let files: [String: String] = Dictionary(
        uniqueKeysWithValues: (1...5).map { index in
            (
                "Ab\(index)cD0f4WpX5Hp9kS6ydiwtgOPFbMB1qJUm.txt",
                String(repeating: "file \(index) bytes; ", count: index * 4000)
            )
        })

    /// A console export folder whose `_File` objects point at `domain`.
    static func export(pointingAt domain: FileDomainStandIn) throws -> String {
        let folder = try TestServer.makeDataDirectory() + "-export"
        var lines = [#"#filetype:JSON-streaming {"type":"Class","class":"_File"}"#]
        for (index, (key, text)) in files.sorted(by: { $0.key < $1.key }).enumerated() {
            let object: JSONValue = [
                "objectId": .string("5f3dea0a7a53400006b1387\(index)"),
                "createdAt": "2020-08-20T03:08:26.000Z",
                "updatedAt": "2020-08-20T03:08:26.000Z", "name": .string("n\(index).txt"),
                "key": .string(key),
                "url": .string(domain.url(key)), "mime_type": "text/plain", "provider": "qiniu",
                "bucket": "abcdefgh",
                "metaData": ["size": .int(Int64(text.utf8.count)), "owner": "unknown"],
                "ACL": ["*": ["read": true]],
            ]
            lines.append(object.jsonString)
        }
        try ImportFixture.write(lines.joined(separator: "\n") + "\n", to: folder + "/_File.0.jsonl")
        return folder
    }

    /// Runs `body` with a bucket, a file domain holding `files`, an export pointing at it and a
    /// fresh data directory to import into.
    static func withExport(
        _ body:
            @Sendable (S3TestServer, FileDomainStandIn, _ export: String, _ destination: String)
            async throws -> Void
    ) async throws {
        try await S3TestServer.run { s3 in
            try await FileDomainStandIn.run(files: files.mapValues { Array($0.utf8) }) { domain in
                let export = try Self.export(pointingAt: domain)
                let destination = try TestServer.makeDataDirectory()
                defer {
                    try? FileManager.default.removeItem(atPath: export)
                    try? FileManager.default.removeItem(atPath: destination)
                }
                try await body(s3, domain, export, destination)
            }
        }
    }

    /// The bytes stored under `key`, read back.
    static func read(_ store: any FileContentStore, _ key: String) async throws -> String? {
        guard let size = try await store.size(ofKey: key) else { return nil }
        guard size > 0, let stream = try await store.read(key: key, range: 0...(size - 1)) else {
            return ""
        }
        var bytes = ByteBuffer()
        try await stream.forEach {
            var part = $0
            bytes.writeBuffer(&part)
        }
        return String(buffer: bytes)
    }

    @Test func anInterruptedImportIntoTheBucketIsFinishedByRunningItAgain() async throws {
        try await Self.withExport { s3, domain, export, destination in
            let keys = Self.files.keys.sorted()
            let arguments =
                [
                    "import", export, "--download-files", "--download-allow", domain.authority, "--files-url", "https://files.example.com",
                    "--files-s3-endpoint", s3.endpoint, "--files-s3-bucket", s3.bucket, "--files-s3-prefix",
                    "app/",
                    "--files-s3-path-style", "--files-s3-access-key", s3.accessKey, "--files-s3-secret-key",
                    s3.secretKey,
                ]
                + ImportCommandTests.target(destination)
            // The domain fails two files: one refused, one cut off mid-body.
            domain.answer(keys[1], with: .unavailable)
            domain.answer(keys[3], with: .cut)
            let first = try await CLI.functionhost(arguments, port: 0)
            #expect(first.status == 0, "\(first)")
            #expect(first.output.contains("file bytes: 3 served here, 2 not found"), "\(first)")
            let store = try s3.store(prefix: "app/")
            #expect(try await store.size(ofKey: keys[1]) == nil)
            #expect(
                try await store.size(ofKey: keys[3]) == nil, "a body cut short leaves nothing under its key"
            )
            // Nothing of them on the data directory's disk: the bucket is the store.
            #expect(!FileManager.default.fileExists(atPath: destination + "/files/" + keys[0]))

            domain.answer(keys[1], with: .whole)
            domain.answer(keys[3], with: .whole)
            let asked = domain.log.paths.count
            let second = try await CLI.functionhost(arguments, port: 0)
            #expect(second.status == 0, "\(second)")
            #expect(second.output.contains("file bytes: 5 served here, 0 not found"), "\(second)")
            // Only what was missing was fetched again.
            #expect(Set(domain.log.paths.dropFirst(asked)) == ["/" + keys[1], "/" + keys[3]])
            for key in keys {
                let stored = try await Self.read(store, key)
                #expect(stored.map(MD5.hex) == MD5.hex(Self.files[key]!), "\(key)")
            }

            // A host on that bucket and that file domain serves each at its url, the two
            // files of the second run included.
            try await TestServer.run(
                dataDirectory: destination, transport: .socket,
                configure: {
                    $0.s3Files = try? s3.settings(prefix: "app/")
                    $0.fileDomain = FileDomain(url: "https://files.example.com")
                }
            ) { api in
                let found = try await api.find("_File", ["limit": "10"], headers: Headers.master)
                #expect(found.results.count == 5)
                for file in found.results {
                    let key = try #require(file["key"]?.stringValue)
                    #expect(file["url"] == .string("https://files.example.com/\(key)"), "\(file)")
                    #expect(file["metaData"]?["_checksum"] == .string(MD5.hex(Self.files[key]!)), "\(file)")
                    let got = try await EdgeFixture.send(
                        port: api.port, .GET, "/\(key)", host: "files.example.com", headers: [])
                    #expect(got.status == .ok && got.text == Self.files[key], "\(key): \(got.status)")
                }
            }
        }
    }

    /// `import EXPORT --download-files` into `s3`'s bucket, on the data directory `destination`.
    static func importIntoTheBucket(
        _ s3: S3TestServer, from domain: FileDomainStandIn, export: String, destination: String
    ) async throws -> CLI.Run {
        try await CLI.functionhost(
            [
                "import", export, "--download-files", "--download-allow", domain.authority, "--public-url", "https://api.example.com",
                "--files-s3-endpoint", s3.endpoint, "--files-s3-bucket", s3.bucket, "--files-s3-path-style",
                "--files-s3-access-key", s3.accessKey, "--files-s3-secret-key", s3.secretKey,
            ] + ImportCommandTests.target(destination), port: 0)
    }

    /// A bucket holding other bytes under a file's key (another size than the export's) keeps
    /// them: the import reports the key and leaves the file on its old url.
    @Test func aKeyTheBucketHoldsOtherBytesUnderIsReportedNotOverwritten() async throws {
        try await Self.withExport { s3, domain, export, destination in
            let key = Self.files.keys.sorted()[0]
            let store = try s3.store()
            let other = try await store.beginUpload(key: key)
            try await other.append(ByteBuffer(string: "someone else's object"))
            _ = try await other.finish()
            let run = try await Self.importIntoTheBucket(s3, from: domain, export: export, destination: destination)
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("file bytes: 4 served here, 1 not found"), "\(run)")
            #expect(run.output.contains(key), "\(run)")
            #expect(try await Self.read(store, key) == "someone else's object")
            #expect(!domain.log.paths.contains("/" + key))
        }
    }

    /// A file domain whose body doesn't end: the download stops past the export's size (it
    /// filled 3.8 GB in 15 s before), nothing is kept under the key, and the import goes on.
    @Test func aBodyLongerThanTheExportSaysIsStoppedThere() async throws {
        try await Self.withExport { s3, domain, export, destination in
            let key = Self.files.keys.sorted()[0]
            domain.answer(key, with: .endless)
            let run = try await Self.importIntoTheBucket(s3, from: domain, export: export, destination: destination)
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("file bytes: 4 served here, 1 not found"), "\(run)")
            #expect(run.output.contains("passed the"), "\(run)")
            #expect(try await s3.store().size(ofKey: key) == nil)
        }
    }
}
