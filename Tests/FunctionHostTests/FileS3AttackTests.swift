import Foundation
import HTTPTypes
import JSON
import S3Storage
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import FunctionHost

/// What a client can do to a host whose files are in a bucket.
@Suite struct FileS3AttackTests {
    /// Downloads whose readers never read hold their connections to the bucket: more of them
    /// than the store client's default pool (8) leave the other file operations answering.
    @Test func slowReadersDontTakeTheOtherFileOperationsDown() async throws {
        try await S3TestServer.run { server in
            let settings = try server.settings(prefix: "app/")
            try await FileFixture.run(transport: .socket, configure: { $0.s3Files = settings }) { api, _ in
                // Larger than what the kernel's buffers hold between the host and a reader that
                // doesn't read, so each download keeps its connection to the bucket.
                let bytes = [UInt8](repeating: 0x61, count: 24 * 1024 * 1024)
                let large = try await FileFixture.exchange(
                    api, .post, "/1.1/files/large.bin", headers: FileFixture.typed("application/octet-stream"), body: bytes)
                #expect(large.status == .created)
                let path = try FileFixture.path(try JSONValue(parsing: large.body)["url"])
                let small = try await FileFixture.upload(api, "small.txt", "small")
                var readers: [Int32] = []
                defer { for reader in readers { close(reader) } }
                for _ in 0..<12 {
                    readers.append(try Self.requestWithoutReading(port: api.port, path: path))
                }
                // The downloads are under way once the host has sent their heads; a file answered
                // now needs a connection of its own to the bucket.
                let got = try await FileFixture.exchange(api, .get, try FileFixture.path(small["url"]))
                #expect(got.status == .ok, "\(got.status)")
                #expect(String(decoding: got.body, as: UTF8.self) == "small")
                let upload = try await FileFixture.upload(api, "during.txt", "during")
                #expect(upload["objectId"] != nil, "\(upload)")
            }
        }
    }

    /// Sends a GET on a connection whose receive buffer is small and never reads its answer.
    static func requestWithoutReading(port: Int, path: String) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size: Int32 = 4096
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-LC-Id: app\r\nX-LC-Key: key\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        return descriptor
    }
}
