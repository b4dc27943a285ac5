import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOCore
import S3Storage
import TestSupport
import Testing

/// `functionhost files migrate --to s3://...` moving a running app's files from its data
/// directory to a bucket (moto) without downtime: the hosts read the bucket first and the disk
/// for what isn't copied yet (`--files-s3-fallback`), the migration is interrupted and resumed,
/// and every byte in the bucket is verified.
@Suite struct FileMigrationTests {
    /// The CLI's arguments for the test bucket, with `--to`.
    static func migrate(_ s3: S3TestServer, prefix: String, dataDirectory: String) -> [String] {
        ["files", "migrate", "--to", "s3://\(s3.bucket)/\(prefix)", "--data-dir", dataDirectory, "--files-s3-endpoint", s3.endpoint,
         "--files-s3-path-style", "--files-s3-access-key", s3.accessKey, "--files-s3-secret-key", s3.secretKey]
    }

    /// What is stored under each key of `files` (key → text) is that text, checked by MD5.
    static func expectStored(_ files: [String: String], in store: any FileContentStore, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        for (key, text) in files {
            let stored = try await ImportBucketTests.read(store, key)
            #expect(stored.map(MD5.hex) == MD5.hex(text), "\(key)", sourceLocation: sourceLocation)
        }
    }

    @Test func aRunningAppsFilesMoveToTheBucketThroughAnInterruption() async throws {
        try await S3TestServer.run { s3 in
            let directory = try TestServer.makeDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let settings = try s3.settings(prefix: "app/")
            // Before: files on the host's disk.
            let files = try await TestServer.run(dataDirectory: directory) { api in
                var files: [String: String] = [:]
                for index in 0..<6 {
                    let text = String(repeating: "bytes of file \(index). ", count: 500 * (index + 1))
                    let file = try await FileFixture.upload(api, "f\(index).txt", text)
                    files[try #require(file["key"]?.stringValue)] = text
                }
                return files
            }
            // During: the host reads the bucket first, the disk for the rest; a new file goes to the bucket.
            try await TestServer.run(dataDirectory: directory, configure: {
                $0.s3Files = settings
                $0.filesFallBackToDisk = true
            }) { api in
                for (key, text) in files {
                    #expect(try await api.get("/files/\(key)", headers: Headers.none).text == text, "\(key) from disk")
                }
                let late = try await FileFixture.upload(api, "late.txt", "uploaded during the move")
                let lateKey = try #require(late["key"]?.stringValue)
                #expect(try await s3.store(prefix: "app/").size(ofKey: lateKey) == 24)
                #expect(!FileManager.default.fileExists(atPath: directory + "/files/" + lateKey))

                // A run stopped after three files (as a killed process stops)...
                var migration = FileMigration(
                    source: LocalFileStore(runningIn: URL(fileURLWithPath: directory + "/files")), destination: try s3.store(prefix: "app/"),
                    destinationName: "s3://\(s3.bucket)/app/")
                migration.progress = { done, _ in if done == 3 { throw CancellationError() } }
                await #expect(throws: CancellationError.self) { try await migration.run() }
                // ...is finished by the command, which copies only the rest.
                let resumed = try await CLI.functionhost(Self.migrate(s3, prefix: "app/", dataDirectory: directory), port: 0)
                #expect(resumed.status == 0, "\(resumed)")
                #expect(resumed.output.contains("Copied and verified 3 files; 3 verified before"), "\(resumed)")
                let again = try await CLI.functionhost(Self.migrate(s3, prefix: "app/", dataDirectory: directory) + ["--json"], port: 0)
                #expect(again.status == 0 && again.output.contains(#""copied":0"#) && again.output.contains(#""skipped":6"#), "\(again)")
                try await Self.expectStored(files, in: try s3.store(prefix: "app/"))
            }
            // After: the bucket alone serves every file, and a delete reaches it.
            try await TestServer.run(dataDirectory: directory, configure: { $0.s3Files = settings }) { api in
                for (key, text) in files {
                    #expect(try await api.get("/files/\(key)", headers: Headers.none).text == text, "\(key) from the bucket")
                }
                let found = try await api.find("_File", ["where": #"{"name":"f0.txt"}"#], headers: Headers.master)
                let first = try #require(found.results.first)
                let key = try #require(first["key"]?.stringValue)
                #expect(try await api.delete("/1.1/files/\(try #require(first["objectId"]?.stringValue))", headers: Headers.master).status == .ok)
                #expect(try await s3.store(prefix: "app/").size(ofKey: key) == nil)
            }
        }
    }

    /// A key the bucket holds other bytes under is reported and left alone (exit 1); one it
    /// holds the same bytes under is verified and kept.
    @Test func aBucketHoldingOtherBytesUnderAKeyIsRefused() async throws {
        try await S3TestServer.run { s3 in
            let directory = try TestServer.makeDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = try s3.store()
            try FileManager.default.createDirectory(atPath: directory + "/files", withIntermediateDirectories: true)
            let files = ["same.txt": "the same bytes", "other.txt": "the app's bytes", "new.txt": "not in the bucket yet"]
            for (key, text) in files { try text.write(toFile: directory + "/files/" + key, atomically: true, encoding: .utf8) }
            for (key, text) in ["same.txt": "the same bytes", "other.txt": "someone else's bytes"] {
                let upload = try await store.beginUpload(key: key)
                try await upload.append(ByteBuffer(string: text))
                _ = try await upload.finish()
            }
            let run = try await CLI.functionhost(Self.migrate(s3, prefix: "", dataDirectory: directory), port: 0)
            #expect(run.status == 1, "\(run)")
            #expect(run.output.contains("Conflict: the bucket holds other bytes under other.txt"), "\(run)")
            #expect(run.output.contains("Copied and verified 1 files; 0 verified before; 1 already in the bucket"), "\(run)")
            #expect(try await ImportBucketTests.read(store, "other.txt") == "someone else's bytes")
            try await Self.expectStored(["same.txt": "the same bytes", "new.txt": "not in the bucket yet"], in: store)
        }
    }

    @Test func badDestinationsAreRefusedWithOneLine() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (arguments, message) in [
            (["--to", "https://bucket/x", "--files-s3-endpoint", "http://127.0.0.1:1"], "s3://bucket/prefix"),
            (["--to", "s3://Bad_Bucket/x", "--files-s3-endpoint", "http://127.0.0.1:1", "--files-s3-access-key", "a", "--files-s3-secret-key", "b"], "bucket name"),
            (["--to", "s3://bucket/../x", "--files-s3-endpoint", "http://127.0.0.1:1", "--files-s3-access-key", "a", "--files-s3-secret-key", "b"], "prefix"),
            (["--to", "s3://bucket/x", "--files-s3-bucket", "other", "--files-s3-endpoint", "http://127.0.0.1:1"], "leave out"),
            (["--to", "s3://bucket/x"], "--files-s3-endpoint"),
        ] {
            let run = try await CLI.functionhost(["files", "migrate", "--data-dir", directory] + arguments, port: 0)
            #expect(run.status != 0 && run.errors.contains(message), "\(arguments): \(run)")
        }
    }
}
