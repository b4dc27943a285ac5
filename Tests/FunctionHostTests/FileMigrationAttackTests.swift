import DataAPI
import Foundation
import FunctionHost
import NIOCore
import S3Storage
import TestSupport
import Testing

/// `files migrate` and `files sweep` given what an attacker (or an accident) leaves in the data
/// directory or the bucket: links out of the directory, names that are no key of ours, objects
/// that are no file of ours. Nothing outside the store is read, copied or removed.
@Suite struct FileMigrationAttackTests {
    static func bucketOptions(_ s3: S3TestServer) -> [String] {
        [
            "--files-s3-endpoint", s3.endpoint, "--files-s3-path-style", "--files-s3-access-key", s3.accessKey, "--files-s3-secret-key",
            s3.secretKey,
        ]
    }

    @Test func migrateCopiesOnlyRegularFilesUnderKeysOfOurs() async throws {
        try await S3TestServer.run { s3 in
            let directory = try TestServer.makeDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let files = directory + "/files"
            try FileManager.default.createDirectory(atPath: files + "/sub", withIntermediateDirectories: true)
            try "secret".write(toFile: directory + "/secret.txt", atomically: true, encoding: .utf8)
            try "real".write(toFile: files + "/real.txt", atomically: true, encoding: .utf8)
            // A link out of the directory, names no key has, a folder, a huge name.
            try FileManager.default.createSymbolicLink(atPath: files + "/link.txt", withDestinationPath: directory + "/secret.txt")
            for name in ["with space.txt", "é.txt", ".hidden", "sub/inner.txt", String(repeating: "k", count: 220)] {
                try "odd".write(toFile: files + "/" + name, atomically: true, encoding: .utf8)
            }
            let run = try await CLI.functionhost(
                ["files", "migrate", "--to", "s3://\(s3.bucket)/p/", "--data-dir", directory] + Self.bucketOptions(s3), port: 0)
            #expect(run.status == 0 && run.output.contains("Copied and verified 1 files"), "\(run)")
            let inPrefix = try await s3.store(prefix: "p/").listKeys(after: nil, limit: 100).map(\.key)
            #expect(inPrefix == ["real.txt"], "\(inPrefix)")
            // The link's target is still there, untouched.
            #expect(try String(contentsOfFile: directory + "/secret.txt", encoding: .utf8) == "secret")
        }
    }

    @Test func sweepLeavesNamesThatAreNoKeyOfOursAndLinksAlone() async throws {
        try await FileFixture.run { api, directory in
            _ = try await FileFixture.upload(api, "kept.txt", "kept")
            let files = directory + "/files"
            try "secret".write(toFile: directory + "/secret.txt", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: files + "/link.txt", withDestinationPath: directory + "/secret.txt")
            try "odd".write(toFile: files + "/with space.txt", atomically: true, encoding: .utf8)
            let run = try await CLI.functionhost(
                ["files", "sweep", "--older-than", "0", "--delete"] + ImportCommandTests.target(directory), port: 0)
            #expect(run.status == 0 && run.output.contains("0 named by no file"), "\(run)")
            #expect(FileManager.default.fileExists(atPath: files + "/with space.txt"))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: files + "/link.txt")) != nil)
            #expect(try String(contentsOfFile: directory + "/secret.txt", encoding: .utf8) == "secret")
        }
    }
}
