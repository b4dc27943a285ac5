import Crypto
import DataAPI
import Foundation
import NIOCore
import TestSupport
import Testing

@testable import S3Storage

/// The store against a real S3-compatible server (moto, checking every signature): uploads in
/// one request and in parts, ranged reads, deletes, and the store's refusals.
@Suite struct S3FileStoreTests {
    /// Uploads `bytes` under `key`, `chunk` bytes at a time.
    static func upload(_ bytes: [UInt8], key: String, to store: any FileContentStore, chunk: Int = 64 * 1024) async throws
        -> StoredContent
    {
        let upload = try await store.beginUpload(key: key)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            try await upload.append(ByteBuffer(bytes: bytes[offset..<end]))
            offset = end
        }
        return try await upload.finish()
    }

    /// The bytes of `range` of `key`.
    static func read(_ key: String, _ range: ClosedRange<Int>, from store: any FileContentStore) async throws -> [UInt8]? {
        guard let stream = try await store.read(key: key, range: range) else { return nil }
        var bytes: [UInt8] = []
        try await stream.forEach { bytes += Array($0.readableBytesView) }
        return bytes
    }

    @Test func aSmallFileIsOneObjectReadWholeOrInPart() async throws {
        try await S3TestServer.run { server in
            let store = try server.store(prefix: "app/")
            let stored = try await Self.upload(Array("Hello, World!".utf8), key: "k1.txt", to: store, chunk: 5)
            #expect(stored == StoredContent(size: 13, md5: "65a8e27d8879283831b664bd8b7f0ad4"))
            #expect(try await store.size(ofKey: "k1.txt") == 13)
            #expect(try await Self.read("k1.txt", 0...12, from: store) == Array("Hello, World!".utf8))
            #expect(try await Self.read("k1.txt", 7...11, from: store) == Array("World".utf8))
            // Under the prefix: the same key without it names nothing.
            let bare = try server.store()
            #expect(try await bare.size(ofKey: "k1.txt") == nil)
            #expect(try await bare.size(ofKey: "app/k1.txt") == nil)
            try await store.delete(key: "k1.txt")
            #expect(try await store.size(ofKey: "k1.txt") == nil)
            #expect(try await Self.read("k1.txt", 0...1, from: store) == nil)
            // Deleting what isn't there is no error.
            try await store.delete(key: "k1.txt")
        }
    }

    @Test func aFileLargerThanAPartGoesInPartsAndReadsBackWhole() async throws {
        try await S3TestServer.run { server in
            var settings = try server.settings()
            settings.partSize = 5 * 1024 * 1024
            let store = S3FileStore(settings: settings)
            // Two full parts and a short last one; each byte tells its place.
            let bytes = (0..<(12 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
            let stored = try await Self.upload(bytes, key: "big.bin", to: store, chunk: 1024 * 1024 + 3)
            #expect(stored.size == bytes.count)
            #expect(stored.md5 == StoredContent.hex(Insecure.MD5.hash(data: bytes)))
            #expect(try await store.size(ofKey: "big.bin") == bytes.count)
            let whole = try #require(try await Self.read("big.bin", 0...(bytes.count - 1), from: store))
            #expect(whole == bytes)
            // A range across the parts' seam.
            let seam = 5 * 1024 * 1024
            #expect(try await Self.read("big.bin", (seam - 3)...(seam + 3), from: store) == Array(bytes[(seam - 3)...(seam + 3)]))
        }
    }

    @Test func aCancelledUploadLeavesNothing() async throws {
        try await S3TestServer.run { server in
            var settings = try server.settings()
            settings.partSize = 5 * 1024 * 1024
            let store = S3FileStore(settings: settings)
            let upload = try await store.beginUpload(key: "gone.bin")
            // A part is sent (the multipart upload is started), then the upload is dropped.
            try await upload.append(ByteBuffer(repeating: 7, count: 6 * 1024 * 1024))
            await upload.cancel()
            #expect(try await store.size(ofKey: "gone.bin") == nil)
            // And a small one never sent at all.
            let small = try await store.beginUpload(key: "small.bin")
            try await small.append(ByteBuffer(string: "abc"))
            await small.cancel()
            #expect(try await store.size(ofKey: "small.bin") == nil)
        }
    }

    @Test(arguments: ["../k1.txt", "a%2Fb", "a/b", ".hidden", "", String(repeating: "k", count: 201)])
    func keysThatAreNotOursNameNothing(key: String) async throws {
        try await S3TestServer.run { server in
            let store = try server.store()
            #expect(try await store.size(ofKey: key) == nil)
            #expect(try await store.read(key: key, range: 0...0) == nil)
            try await store.delete(key: key)
            await #expect(throws: DataAPIError.self) { _ = try await store.beginUpload(key: key) }
            #expect(store.downloadURL(ofKey: key, expiry: .seconds(60), contentType: "text/plain", disposition: nil) == nil)
        }
    }

    /// The store's own words (S3's error code) are for the operator: `checkBucket` throws them,
    /// the host's start says them; a caller of the store gets only that it is unavailable.
    @Test func aWrongSecretIsRefusedWithS3sReasonToTheOperatorOnly() async throws {
        try await S3TestServer.run { server in
            let store = S3FileStore(settings: try server.settings(secret: "not-the-secret"))
            let check = await #expect(throws: S3Error.self) { try await store.checkBucket() }
            #expect(check?.kind == .refused)
            #expect(check?.message.contains("SignatureDoesNotMatch") == true, "\(String(describing: check))")
            let error = await #expect(throws: DataAPIError.self) {
                _ = try await Self.upload(Array("x".utf8), key: "k.txt", to: store)
            }
            #expect(error?.code == .temporarilyUnavailable)
            #expect(error?.message == Self.unavailable, "\(String(describing: error))")
            await #expect(throws: DataAPIError.self) { _ = try await store.size(ofKey: "k.txt") }
        }
    }

    static let unavailable = "The file store is unavailable; try again later."

    /// A bucket that doesn't exist is no missing object: HEAD's bodiless 404 is asked again.
    @Test func aBucketThatDoesNotExistIsNamedToTheOperatorAndIsNoMissingFile() async throws {
        try await S3TestServer.run { server in
            let store = S3FileStore(settings: try server.settings(bucket: "no-such-bucket"))
            let check = await #expect(throws: S3Error.self) { try await store.checkBucket() }
            #expect(check?.kind == .noSuchBucket, "\(String(describing: check))")
            #expect(check?.message.contains("NoSuchBucket") == true, "\(String(describing: check))")
            let error = await #expect(throws: DataAPIError.self) { _ = try await store.size(ofKey: "k.txt") }
            #expect(error?.code == .temporarilyUnavailable)
            let good = S3FileStore(settings: try server.settings())
            try await good.checkBucket()
            #expect(try await good.size(ofKey: "k.txt") == nil)
        }
    }

    @Test func anUnreachableStoreFailsClearly() async throws {
        // A port nothing listens on: the connection is refused at once.
        let port = Ports.free()
        let store = S3FileStore(
            settings: try S3Settings(
                endpoint: "http://127.0.0.1:\(port)", region: "us-east-1", bucket: "files", accessKey: "a", secretKey: "s",
                pathStyle: true))
        let check = await #expect(throws: S3Error.self) { try await store.checkBucket() }
        #expect(check?.kind == .unreachable)
        #expect(check?.message.contains("could not be reached") == true, "\(String(describing: check))")
        let error = await #expect(throws: DataAPIError.self) { _ = try await store.size(ofKey: "k.txt") }
        #expect(error?.message == Self.unavailable, "\(String(describing: error))")
    }
}
