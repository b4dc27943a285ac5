import AsyncHTTPClient
import DataAPI
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import FunctionHost

/// A large upload streams to disk: the server's memory does not grow with the file.
@Suite struct FileMemoryTests {
    /// 200 MB, sent as 1 MB chunks made on demand.
    static let size = 200 * 1024 * 1024
    static let chunk = 1024 * 1024

    /// This process's resident memory, in bytes (the server runs in it).
    static func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let pages = Int(statm.split(separator: " ")[1]) ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The body: `size` bytes in `chunk`-sized buffers, never held together.
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

    @Test func a200MegabyteUploadKeepsTheServersMemoryFlat() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.maxFileSize = 300 * 1024 * 1024 }) { api in
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            defer { _ = client.shutdown() }
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(api.port)/1.1/files/big.bin")
            request.method = .POST
            request.headers.add(name: "X-LC-Id", value: "app")
            request.headers.add(name: "X-LC-Key", value: "key")
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.body = .stream(Chunks(), length: .known(Int64(Self.size)))
            let before = try Self.residentBytes()
            let response = try await client.execute(request, timeout: .seconds(300))
            let body = try await response.body.collect(upTo: 1 << 20)
            let after = try Self.residentBytes()
            #expect(response.status == .created)
            let file = try JSONValue(parsing: body.readableBytesView)
            #expect(file["metaData"]?["size"]?.intValue == Int64(Self.size))
            let key = try #require(file["key"]?.stringValue)
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/files/" + key)
            #expect((attributes[.size] as? NSNumber)?.intValue == Self.size)
            let grown = after - before
            print("resident memory grew by \(grown / 1024 / 1024) MB during a \(Self.size / 1024 / 1024) MB upload")
            #expect(grown < 100 * 1024 * 1024, "resident memory grew by \(grown) bytes")
        }
    }
}
