import AsyncHTTPClient
import DataAPI
import Foundation
import JSON
import NIOCore
import NIOHTTP1
import S3Storage
import TestSupport
import Testing

@testable import FunctionHost

/// A large file streams through the server: its memory does not grow with the file, uploading
/// or downloading. The server runs in this process, so this process's memory is the server's,
/// and so is every other test's running beside it: `scripts/test.sh` runs this suite on its own,
/// after the others, and its tests one at a time. Over a socket, so the body comes in as a client
/// streams it.
@Suite(.serialized) struct FileMemoryTests {
    /// 200 MB, sent as 1 MB chunks made on demand.
    static let size = 200 * 1024 * 1024
    static let chunk = 1024 * 1024
    /// How much the process may grow while the file goes through.
    static let allowance = 100 * 1024 * 1024

    /// This process's resident memory, in bytes: the second field of /proc/self/statm, in pages.
    static func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let pages = try #require(Int(statm.split(separator: " ")[1]))
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The most this process has had resident since the last `resetPeak()` (VmHWM), in bytes.
    /// `residentBytes()` after the fact misses a buffer freed before the answer came back (glibc
    /// hands large blocks back to the system at once); the peak doesn't.
    static func peakBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    /// Resets the peak to the current resident size; false when the kernel doesn't let us.
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// The body: `size` bytes in `chunk`-sized buffers, never held together (one buffer, sent
    /// again and again).
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        struct AsyncIterator: AsyncIteratorProtocol {
            var sent = 0
            let buffer = ByteBuffer(repeating: UInt8(ascii: "x"), count: FileMemoryTests.chunk)
            mutating func next() async -> ByteBuffer? {
                guard sent < FileMemoryTests.size else { return nil }
                sent += FileMemoryTests.chunk
                return buffer
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    static func megabytes(_ bytes: Int) -> String { "\(bytes / 1024 / 1024) MB" }

    @Test func a200MegabyteFileStreamsThroughWithFlatMemory() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, transport: .socket, configure: { $0.maxFileSize = 300 * 1024 * 1024 }
        ) { api in
            try await Self.streamThrough(api) { key in
                let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/files/" + key)
                #expect((attributes[.size] as? NSNumber)?.intValue == Self.size)
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/files/.incoming").isEmpty)
            }
        }
    }

    /// The same through a bucket (moto): the upload goes on in parts of 8 MB, the download
    /// streams from GetObject, and neither holds the file.
    @Test func a200MegabyteFileStreamsThroughABucketWithFlatMemory() async throws {
        try await S3TestServer.run { server in
            let settings = try server.settings()
            let store = try server.store()
            let directory = try TestServer.makeDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try await TestServer.run(
                dataDirectory: directory, transport: .socket,
                configure: {
                    $0.maxFileSize = 300 * 1024 * 1024
                    $0.s3Files = settings
                }
            ) { api in
                try await Self.streamThrough(api) { key in
                    let stored = try await store.size(ofKey: key)
                    #expect(stored == Self.size)
                }
            }
        }
    }

    /// Many uploads to a bucket at once, each short of a part: their parts gather on disk
    /// (`SpoolFile`), so the host's memory doesn't grow with their number (held in memory, these
    /// 40 would be 280 MB; a few hundred slow clients took gigabytes).
    @Test func manyUploadsToABucketGatherTheirPartsOnDisk() async throws {
        try await S3TestServer.run { server in
            let spool = try TestServer.makeDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: spool) }
            let store = S3FileStore(settings: try server.settings(), spoolDirectory: URL(fileURLWithPath: spool))
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: Self.chunk)
            let before = try Self.residentBytes()
            let tracksPeak = Self.resetPeak()
            var uploads: [any FileContentUpload] = []
            for index in 0..<40 {
                let upload = try await store.beginUpload(key: "many-\(index).bin")
                for _ in 0..<7 { try await upload.append(chunk) }
                uploads.append(upload)
            }
            let after = try Self.residentBytes()
            let peak = try Self.peakBytes()
            print("40 uploads of 7 MB open: resident \(Self.megabytes(before)) -> \(Self.megabytes(after))")
            #expect(after - before < Self.allowance, "resident memory grew by \(after - before) bytes")
            if tracksPeak { #expect(peak - before < Self.allowance, "resident memory peaked \(peak - before) bytes above the start") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty, "spool files have no names")
            let stored = try await uploads[0].finish()
            #expect(stored.size == 7 * Self.chunk)
            #expect(try await store.size(ofKey: "many-0.bin") == 7 * Self.chunk)
            for upload in uploads.dropFirst() { await upload.cancel() }
            #expect(try await store.size(ofKey: "many-1.bin") == nil)
        }
    }

    /// Uploads the file through `api`, then downloads it, each with the memory it takes
    /// measured; `stored` checks where the upload put the bytes (given the key).
    static func streamThrough(_ api: API, stored: (String) async throws -> Void) async throws {
        try await HTTPClient.withHTTPClient { client in
            // Upload.
            var request = FileFixture.streamedUpload(port: api.port, name: "big.bin")
            request.body = .stream(Chunks(), length: .known(Int64(Self.size)))
            let before = try Self.residentBytes()
            let tracksPeak = Self.resetPeak()
            let response = try await client.execute(request, timeout: .seconds(300))
            let body = try await response.body.collect(upTo: 1 << 20)
            let after = try Self.residentBytes()
            let peak = try Self.peakBytes()
            #expect(response.status == .created, "\(String(buffer: body))")
            let file = try JSONValue(parsing: body.readableBytesView)
            #expect(file["metaData"]?["size"] == .int(Int64(Self.size)), "\(file)")
            let key = try #require(file["key"]?.stringValue, "\(file)")
            try await stored(key)
            print(
                "upload of \(Self.megabytes(Self.size)): resident \(Self.megabytes(before)) -> \(Self.megabytes(after)),"
                    + " peak \(tracksPeak ? Self.megabytes(peak) : "not tracked")")
            #expect(after - before < Self.allowance, "resident memory grew by \(after - before) bytes")
            if tracksPeak {
                #expect(peak - before < Self.allowance, "resident memory peaked \(peak - before) bytes above the start")
            }

            // Download, read as it arrives.
            let url = try #require(file["url"]?.stringValue.flatMap(URL.init(string:)))
            let downloadBefore = try Self.residentBytes()
            let tracksDownloadPeak = Self.resetPeak()
            let download = try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(api.port)\(url.path)"), timeout: .seconds(300))
            #expect(download.status == .ok)
            #expect(download.headers.first(name: "Content-Length") == String(Self.size))
            #expect(download.headers.first(name: "ETag") == file["metaData"]?["_checksum"]?.stringValue.map { "\"\($0)\"" })
            var received = 0
            var ends: [UInt8] = []
            for try await part in download.body {
                received += part.readableBytes
                // A byte-by-byte scan of 200 MB is slow in a debug build: each part's ends will do.
                ends += [part.readableBytesView.first, part.readableBytesView.last].compactMap { $0 }
            }
            let downloadAfter = try Self.residentBytes()
            let downloadPeak = try Self.peakBytes()
            #expect(received == Self.size)
            #expect(!ends.isEmpty && ends.allSatisfy { $0 == UInt8(ascii: "x") })
            print(
                "download: resident \(Self.megabytes(downloadBefore)) -> \(Self.megabytes(downloadAfter)),"
                    + " peak \(tracksDownloadPeak ? Self.megabytes(downloadPeak) : "not tracked")")
            #expect(downloadAfter - downloadBefore < Self.allowance)
            if tracksDownloadPeak {
                #expect(downloadPeak - downloadBefore < Self.allowance, "peaked \(downloadPeak - downloadBefore) bytes above")
            }
        }
    }
}
