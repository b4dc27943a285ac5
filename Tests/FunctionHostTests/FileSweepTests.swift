import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOCore
import S3Storage
import TestSupport
import Testing

/// `functionhost files sweep [--delete]`: the bytes no `_File` names, in the data directory or
/// the bucket; never what a `_File` or a pending upload names, nor bytes just written.
@Suite struct FileSweepTests {
    /// Uploads two files and a token that promises a third key; returns the keys named.
    static func namedKeys(_ api: API) async throws -> [String] {
        let a = try await FileFixture.upload(api, "a.txt", "file a")
        let b = try await FileFixture.upload(api, "b.txt", "file b")
        let issued = try await api.post("/1.1/fileTokens", FileWireTests.tokenBody("c.txt", size: 6))
        return [a["key"], b["key"], issued["key"]].compactMap { $0?.stringValue }
    }

    static func put(_ store: any FileContentStore, _ key: String, _ text: String) async throws {
        let upload = try await store.beginUpload(key: key)
        try await upload.append(ByteBuffer(string: text))
        _ = try await upload.finish()
    }

    /// Sweeps `store` of the host on `directory` with `options`: what is listed, then with
    /// `--delete`, then what is left.
    static func sweep(
        _ store: any FileContentStore, directory: String, options: [String], named: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let target = ImportCommandTests.target(directory)
        let young = try await CLI.functionhost(["files", "sweep"] + target + options, port: 0)
        #expect(young.status == 0 && young.output.contains("1 younger than 60 minutes"), "\(young)", sourceLocation: sourceLocation)
        #expect(!young.output.contains("stray.bin"), "\(young)", sourceLocation: sourceLocation)
        let listed = try await CLI.functionhost(["files", "sweep", "--older-than", "0"] + target + options, port: 0)
        #expect(listed.status == 0, "\(listed)", sourceLocation: sourceLocation)
        #expect(listed.output.contains("stray.bin\t11 bytes"), "\(listed)", sourceLocation: sourceLocation)
        #expect(listed.output.contains("3 named by no file") == false && listed.output.contains("1 named by no file"), "\(listed)", sourceLocation: sourceLocation)
        #expect(try await store.size(ofKey: "stray.bin") == 11, sourceLocation: sourceLocation)
        let deleted = try await CLI.functionhost(["files", "sweep", "--older-than", "0", "--delete"] + target + options, port: 0)
        #expect(deleted.status == 0 && deleted.output.contains("1 removed"), "\(deleted)", sourceLocation: sourceLocation)
        #expect(try await store.size(ofKey: "stray.bin") == nil, sourceLocation: sourceLocation)
        for key in named { #expect(try await store.size(ofKey: key) != nil, "\(key) kept", sourceLocation: sourceLocation) }
    }

    @Test func strayBytesInTheDataDirectoryAreListedAndRemoved() async throws {
        try await FileFixture.run { api, directory in
            let named = try await Self.namedKeys(api)
            let store = LocalFileStore(runningIn: URL(fileURLWithPath: directory + "/files"))
            // The token's key holds bytes already (an upload under way): it is named by the token.
            try await Self.put(store, named[2], "file c")
            try await Self.put(store, "stray.bin", "stray bytes")
            try "partial".write(toFile: directory + "/files/.incoming/partial", atomically: true, encoding: .utf8)
            try await Self.sweep(store, directory: directory, options: [], named: named)
            // A partial upload in `.incoming` is the running host's, never the sweep's.
            #expect(try FileFixture.incoming(directory) == ["partial"])
        }
    }

    @Test func strayObjectsInTheBucketAreListedAndRemoved() async throws {
        try await S3TestServer.run { s3 in
            try await FileS3Tests.host(s3) { api, directory in
                let named = try await Self.namedKeys(api)
                let store = try s3.store(prefix: "app/")
                try await Self.put(store, named[2], "file c")
                try await Self.put(store, "stray.bin", "stray bytes")
                // Outside the prefix: another app's, never looked at.
                try await Self.put(try s3.store(), "outside.bin", "not ours")
                try await Self.sweep(
                    store, directory: directory,
                    options: ["--files-s3-endpoint", s3.endpoint, "--files-s3-bucket", s3.bucket, "--files-s3-prefix", "app/",
                              "--files-s3-path-style", "--files-s3-access-key", s3.accessKey, "--files-s3-secret-key", s3.secretKey],
                    named: named)
                #expect(try await s3.store().size(ofKey: "outside.bin") == 8)
            }
        }
    }

    /// Deleting a `_File` deletes its bytes, in the directory as in the bucket: nothing for a sweep.
    @Test func deletingAFileDeletesItsBytesInBothStores() async throws {
        try await FileFixture.run { api, directory in
            let file = try await FileFixture.upload(api, "gone.txt", "soon gone")
            let key = try #require(file["key"]?.stringValue)
            #expect(try FileFixture.storedKeys(directory).contains(key))
            #expect(try await api.delete("/1.1/files/\(try #require(file["objectId"]?.stringValue))", headers: Headers.master).status == .ok)
            #expect(try !FileFixture.storedKeys(directory).contains(key))
        }
        try await S3TestServer.run { s3 in
            try await FileS3Tests.host(s3) { api, _ in
                let file = try await FileFixture.upload(api, "gone.txt", "soon gone")
                let key = try #require(file["key"]?.stringValue)
                let store = try s3.store(prefix: "app/")
                #expect(try await store.size(ofKey: key) == 9)
                #expect(try await api.delete("/1.1/files/\(try #require(file["objectId"]?.stringValue))", headers: Headers.master).status == .ok)
                #expect(try await store.size(ofKey: key) == nil)
            }
        }
    }
}
