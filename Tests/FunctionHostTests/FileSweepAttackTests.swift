import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOCore
import S3Storage
import TestSupport
import Testing

/// `files sweep` from its attack review (a tester who hadn't read the tests): many `_File`
/// objects naming one key hid the other keys of a page (their bytes were deleted); a data
/// directory without a database, a bucket prefix that is no folder, and no prefix at all took
/// everything for an orphan.
@Suite struct FileSweepAttackTests {
    static func bucketOptions(_ s3: S3TestServer, prefix: String?) -> [String] {
        ["--files-s3-endpoint", s3.endpoint, "--files-s3-bucket", s3.bucket, "--files-s3-path-style",
         "--files-s3-access-key", s3.accessKey, "--files-s3-secret-key", s3.secretKey] + (prefix.map { ["--files-s3-prefix", $0] } ?? [])
    }

    @Test func manyFilesNamingOneKeyHideNoOtherKey() async throws {
        try await FileFixture.run { api, directory in
            let first = try await FileFixture.upload(api, "first.txt", "first")
            let shared = try #require(first["key"]?.stringValue)
            // The master key writes `_File` objects through /classes too: 250 name one key.
            for _ in 0..<5 {
                let requests: [JSONValue] = (0..<50).map { index in
                    ["method": "POST", "path": "/1.1/classes/_File", "body": ["key": .string(shared), "name": .string("dup\(index)")]]
                }
                let reply = try await api.post("/1.1/batch", headers: Headers.master, ["requests": .array(requests)])
                #expect(reply.status == .ok, "\(reply)")
            }
            let victim = try await FileFixture.upload(api, "victim.txt", "victim")
            let key = try #require(victim["key"]?.stringValue)
            let store = LocalFileStore(runningIn: URL(fileURLWithPath: directory + "/files"))
            let run = try await CLI.functionhost(
                ["files", "sweep", "--older-than", "0", "--delete"] + ImportCommandTests.target(directory), port: 0)
            #expect(run.status == 0 && run.output.contains("0 named by no file"), "\(run)")
            #expect(try await store.size(ofKey: key) == 6)
            #expect(try await store.size(ofKey: shared) == 5)
        }
    }

    @Test func aDataDirectoryWithoutADatabaseIsRefused() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/files", withIntermediateDirectories: true)
        try "bytes".write(toFile: directory + "/files/kept.bin", atomically: true, encoding: .utf8)
        let run = try await CLI.functionhost(["files", "sweep", "--older-than", "0", "--delete", "--data-dir", directory], port: 0)
        #expect(run.status != 0 && run.errors.contains("No database"), "\(run)")
        #expect(FileManager.default.fileExists(atPath: directory + "/files/kept.bin"))
        #expect(!FileManager.default.fileExists(atPath: HostConfiguration.databasePath(in: directory)), "no database made")
    }

    @Test func aDatabaseWithoutFilesIsRefused() async throws {
        try await S3TestServer.run { s3 in
            try await FileS3Tests.host(s3) { api, directory in
                let store = try s3.store(prefix: "app/")
                try await FileSweepTests.put(store, "kept.bin", "kept")
                let run = try await CLI.functionhost(
                    ["files", "sweep", "--older-than", "0", "--delete"] + ImportCommandTests.target(directory)
                        + Self.bucketOptions(s3, prefix: "app/"), port: 0)
                #expect(run.status != 0 && run.errors.contains("No _File object"), "\(run)")
                #expect(try await store.size(ofKey: "kept.bin") == 4)
            }
        }
    }

    @Test func aPrefixThatIsNoFolderOrNoPrefixIsRefused() async throws {
        try await S3TestServer.run { s3 in
            try await FileS3Tests.host(s3) { api, directory in
                _ = try await FileFixture.upload(api, "named.txt", "named")
                let root = try s3.store()
                try await FileSweepTests.put(root, "apple-backup.tar", "backup")
                for prefix in ["app", nil] as [String?] {
                    let run = try await CLI.functionhost(
                        ["files", "sweep", "--older-than", "0", "--delete"] + ImportCommandTests.target(directory)
                            + Self.bucketOptions(s3, prefix: prefix), port: 0)
                    #expect(run.status != 0, "\(prefix ?? "none"): \(run)")
                    #expect(try await root.size(ofKey: "apple-backup.tar") == 6, "\(prefix ?? "none")")
                }
            }
        }
    }
}
