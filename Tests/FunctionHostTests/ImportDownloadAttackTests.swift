import DataAPI
import Foundation
import JSON
import Testing
import TestSupport

/// `import --download-files` fetches each `_File` object's url, and those urls are whatever the
/// app's end users saved: an attacker's file pointing at the host's own network (a loopback
/// admin port, a cloud metadata address) must not be fetched into a file the attacker can read.
/// Only public addresses are reached unless the operator lists a host with `--download-allow`;
/// a redirect is checked hop by hop.
@Suite(.timeLimit(.minutes(3)))
struct ImportDownloadAttackTests {
    /// The bytes of the file the stand-in serves under `key`.
    static let key = "AttackTestFileKey0000000000000001.txt"
    static let bytes = Array("internal secret".utf8)

    /// An export folder whose `_File` objects have these urls, each claiming `sizes`' size in its
    /// `metaData` (nil: none), by default `bytes`'s.
    static func export(urls: [String], sizes: [Int64?]? = nil) throws -> String {
        let folder = try TestServer.makeDataDirectory() + "-export"
        var lines = [#"#filetype:JSON-streaming {"type":"Class","class":"_File"}"#]
        for (index, url) in urls.enumerated() {
            var metaData: [String: JSONValue] = ["owner": "unknown"]
            if let size = sizes.map({ $0[index] }) ?? Int64(bytes.count) { metaData["size"] = .int(size) }
            let object: JSONValue = [
                "objectId": .string("5f3dea0a7a53400006b13\(String(format: "%03d", index))"),
                "createdAt": "2020-08-20T03:08:26.000Z", "updatedAt": "2020-08-20T03:08:26.000Z",
                "name": .string("n\(index).txt"), "key": .string("AttackTestFileKey\(String(format: "%016d", index)).txt"),
                "url": .string(url), "mime_type": "text/plain", "provider": "qiniu", "bucket": "abcdefgh",
                "metaData": .object(metaData), "ACL": ["*": ["read": true]],
            ]
            lines.append(object.jsonString)
        }
        try ImportFixture.write(lines.joined(separator: "\n") + "\n", to: folder + "/_File.0.jsonl")
        return folder
    }

    /// `import EXPORT --download-files` into a fresh data directory, with `arguments` added.
    static func importDownloading(_ export: String, _ arguments: [String] = []) async throws -> CLI.Run {
        let destination = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: destination) }
        return try await CLI.functionhost(
            ["import", export, "--download-files", "--public-url", "https://api.example.com"] + arguments
                + ImportCommandTests.target(destination), port: 0)
    }

    /// Urls at loopback, the cloud metadata address, private and unspecified addresses, by
    /// number and by name, are refused before any connection: nothing reaches the stand-in on
    /// loopback, and each file keeps its old url. Listing the stand-in exactly lets the same
    /// export through (so the refusal above is the policy's, not a broken download).
    @Test func internalAddressesAreNotFetched() async throws {
        try await FileDomainStandIn.run(files: [Self.key: Self.bytes]) { domain in
            let port = domain.port
            let urls = [
                domain.url(Self.key), "http://localhost:\(port)/\(Self.key)", "http://[::1]:\(port)/\(Self.key)",
                "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/\(Self.key)",
                "http://0.0.0.0:\(port)/\(Self.key)", "http://[::ffff:127.0.0.1]:\(port)/\(Self.key)",
            ]
            let export = try Self.export(urls: urls)
            defer { try? FileManager.default.removeItem(atPath: export) }
            let refused = try await Self.importDownloading(export)
            #expect(refused.status == 0, "\(refused)")
            #expect(refused.output.contains("file bytes: 0 served here, \(urls.count) not found"), "\(refused)")
            #expect(refused.output.contains("loopback address"), "\(refused)")
            #expect(refused.output.contains("cloud metadata address"), "\(refused)")
            #expect(domain.log.paths.isEmpty, "the stand-in on loopback was reached: \(domain.log.paths)")

            let listed = try Self.export(urls: [domain.url(Self.key)])
            defer { try? FileManager.default.removeItem(atPath: listed) }
            let allowed = try await Self.importDownloading(listed, ["--download-allow", domain.authority])
            #expect(allowed.output.contains("file bytes: 1 served here, 0 not found"), "\(allowed)")
            #expect(domain.log.paths == ["/" + Self.key])
        }
    }

    /// A listed host redirecting to an internal address that is not listed (`localhost` by name,
    /// the metadata address) is not followed: only the listed hop is asked.
    @Test func aRedirectToAnInternalAddressIsNotFollowed() async throws {
        let (first, second) = ("RedirectToLocalhost0000000000001.txt", "RedirectToMetadata00000000000001.txt")
        try await FileDomainStandIn.run(files: [Self.key: Self.bytes, first: [], second: []]) { domain in
            domain.answer(first, with: .redirect("http://localhost:\(domain.port)/\(Self.key)"))
            domain.answer(second, with: .redirect("http://169.254.169.254/latest/meta-data/"))
            let export = try Self.export(urls: [domain.url(first), domain.url(second)])
            defer { try? FileManager.default.removeItem(atPath: export) }
            let run = try await Self.importDownloading(export, ["--download-allow", domain.authority])
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("file bytes: 0 served here, 2 not found"), "\(run)")
            #expect(run.output.contains("'localhost' (127.0.0.1)"), "\(run)")
            #expect(run.output.contains("cloud metadata address"), "\(run)")
            #expect(domain.log.paths.sorted() == ["/" + first, "/" + second].sorted(), "\(domain.log.paths)")
        }
    }

    /// End users write a `_File`'s `metaData.size` with its url, so no size the export claims
    /// raises what a download may bring: past the import's limit (`--max-file-size`, else
    /// serve's), a file whose export claims a terabyte, or nothing, or its true size, is not kept
    /// and is reported; a file within the limit, from the same host, is.
    @Test func aFilePastTheSizeLimitIsNotKept() async throws {
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 1024 * 1024 + 1)
        let names = ["ClaimsATerabyte00000000000000001.txt", "ClaimsNoSize00000000000000000001.txt", "ClaimsItsSize0000000000000000001.txt"]
        try await FileDomainStandIn.run(files: [names[0]: big, names[1]: big, names[2]: big, Self.key: Self.bytes]) { domain in
            let export = try Self.export(
                urls: names.map { domain.url($0) } + [domain.url(Self.key)],
                sizes: [1 << 40, nil, Int64(big.count), Int64(Self.bytes.count)])
            defer { try? FileManager.default.removeItem(atPath: export) }
            let run = try await Self.importDownloading(export, ["--download-allow", domain.authority, "--max-file-size", "1"])
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("file bytes: 1 served here, 3 not found"), "\(run)")
            #expect(run.output.components(separatedBy: "larger than 1048576 bytes").count == 4, "\(run)")
        }
    }

    /// `--max-file-size` below a megabyte or past what bytes can count, or without
    /// `--download-files`, stops the command before it opens anything.
    @Test func aBadSizeLimitIsRefusedUpFront() async throws {
        let export = try Self.export(urls: [])
        defer { try? FileManager.default.removeItem(atPath: export) }
        // Too many megabytes to count in bytes is refused as well, not an overflow.
        for megabytes in ["0", "-3", String(Int.max)] {
            let bad = try await Self.importDownloading(export, ["--max-file-size=\(megabytes)"])
            #expect(bad.status != 0, "\(bad)")
            #expect(bad.errors.contains("--max-file-size must be at least 1"), "\(bad)")
        }
        try await Self.expectRefusedAlone(export, ["--max-file-size", "5"], saying: "--max-file-size goes with --download-files")
    }

    /// A `--download-allow` the policy can't read, or one without `--download-files`, stops the
    /// command before it opens anything.
    @Test func aBadAllowListIsRefusedUpFront() async throws {
        let export = try Self.export(urls: [])
        defer { try? FileManager.default.removeItem(atPath: export) }
        let bad = try await Self.importDownloading(export, ["--download-allow", "http://files.internal/path"])
        #expect(bad.status != 0, "\(bad)")
        #expect(bad.errors.contains("--download-allow"), "\(bad)")
        try await Self.expectRefusedAlone(
            export, ["--download-allow", "files.internal"], saying: "--download-allow goes with --download-files")
    }

    /// `import EXPORT` with `arguments` but without `--download-files` exits non-zero with `message`.
    static func expectRefusedAlone(_ export: String, _ arguments: [String], saying message: String) async throws {
        let destination = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let alone = try await CLI.functionhost(
            ["import", export, "--public-url", "https://api.example.com"] + arguments + ImportCommandTests.target(destination),
            port: 0)
        #expect(alone.status != 0, "\(alone)")
        #expect(alone.errors.contains(message), "\(alone)")
    }
}
