import DataAPI
import Foundation
import HTTPTypes
import Logging
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 23, items 10 and 11: live tokens stay out of the request log, and the files holding the
/// master key and the data are the operator's alone.
@Suite struct EdgeSecretsAttackTests {
    @Test func tokensAndCodesInPathsAreRedactedInTheLog() async throws {
        let log = CapturedLog()
        try await EdgeFixture.run(configure: { $0.publicURL = "https://api.example.com" }, logger: log) { api, _ in
            _ = try await api.post(
                "/1.1/users", ["username": "ada", "password": "pw", "email": "ada@example.com", "mobilePhoneNumber": "13800000001"])
            // A reset link, followed.
            #expect(try await api.post("/1.1/requestPasswordReset", ["email": "ada@example.com"]).status == .ok)
            let reset = try await Outbox.lastLinkPath(api, to: "ada@example.com")
            let token = String(try #require(reset.split(separator: "/").last))
            #expect(try await api.get(reset, headers: Headers.none).status == .ok)
            // An SMS code, redeemed.
            #expect(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "13800000001"]).status == .ok)
            let code = try await Outbox.lastCode(api, to: "13800000001")
            #expect(try await api.post("/1.1/verifyMobilePhone/\(code)", ["mobilePhoneNumber": "13800000001"]).status == .ok)
            // An upload token, used; the file's URL, opened.
            let issued = try await api.post("/1.1/fileTokens", ["name": "n.txt"])
            let uploadToken = try #require(issued["token"]?.stringValue)
            let put = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "n")
            #expect(put.status == .ok, "\(put)")
            let key = try #require(issued["key"]?.stringValue)
            #expect(try await api.get("/files/\(key)", headers: Headers.none).text == "n")

            let lines = log.lines
            let requests = lines.filter { $0.contains("request") && $0.contains("path") }
            #expect(requests.contains { $0.contains("/1.1/resetPassword/***") }, "the route still shows: \(requests)")
            #expect(requests.contains { $0.contains("/1.1/verifyMobilePhone/***") }, "\(requests)")
            #expect(requests.contains { $0.contains("/1.1/fileUploads/***") }, "\(requests)")
            #expect(requests.contains { $0.contains("/files/***") }, "\(requests)")
            for secret in [token, code, uploadToken, key] {
                let leaks = lines.filter { $0.contains(secret) }
                #expect(leaks.isEmpty, "\(secret) is in the log: \(leaks)")
            }
        }
    }

    /// Issue 32's attack review: the router skips empty path segments, so `//1.1/resetPassword/T`
    /// and `/files//K` reach their routes; the log redacted by string prefix and wrote them whole.
    @Test func secretsInPathsWithEmptySegmentsAreRedactedToo() async throws {
        let log = CapturedLog()
        try await EdgeFixture.run(logger: log) { api, _ in
            let issued = try await api.post("/1.1/fileTokens", ["name": "n.txt"])
            let put = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "n")
            #expect(put.status == .ok, "\(put)")
            let key = try #require(issued["key"]?.stringValue)
            #expect(try await api.get("//files/\(key)", headers: Headers.none).text == "n")
            #expect(try await api.get("/files//\(key)", headers: Headers.none).text == "n")
            _ = try await api.get("//1.1/resetPassword/SECRETA", headers: Headers.none)
            _ = try await api.get("/1.1//resetPassword/SECRETB", headers: Headers.none)
            _ = try await api.get("///1/emailVerify/SECRETC", headers: Headers.none)
            let lines = log.lines
            for secret in [key, "SECRETA", "SECRETB", "SECRETC"] {
                let leaks = lines.filter { $0.contains(secret) }
                #expect(leaks.isEmpty, "\(secret) is in the log: \(leaks)")
            }
            #expect(lines.contains { $0.contains("/1.1/resetPassword/***") }, "\(lines)")
        }
        #expect(RedactedPath.of("//1.1/resetPassword/abc") == "/1.1/resetPassword/***")
        #expect(RedactedPath.of("/files//k.txt/") == "/files/***/")
    }

    @Test func redactionKeepsOtherPathsAsTheyAre() {
        #expect(RedactedPath.of("/1.1/resetPassword/abc") == "/1.1/resetPassword/***")
        #expect(RedactedPath.of("/1/emailVerify/abc/extra") == "/1/emailVerify/***/extra")
        #expect(RedactedPath.of("/1.1/resetPasswordBySmsCode/123456") == "/1.1/resetPasswordBySmsCode/***")
        #expect(RedactedPath.of("/files/k.txt/name.txt") == "/files/***/name.txt")
        #expect(RedactedPath.of("/1.1/classes/Todo/abc") == "/1.1/classes/Todo/abc")
        #expect(RedactedPath.of("/1.1/resetPassword/") == "/1.1/resetPassword/")
        #expect(RedactedPath.of("/") == "/")
    }

    /// A file's or directory's permission bits.
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue, "\(path)") & 0o777
    }

    @Test func theKeysFileAndDataDirectoryAreTheOperatorsAlone() throws {
        let parent = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let fresh = parent + "/fresh"
        _ = try AppKeys.resolve(dataDirectory: fresh, appId: nil, appKey: nil, masterKey: nil, hookKey: nil)
        #expect(try Self.mode(fresh) == 0o700)
        #expect(try Self.mode(fresh + "/keys.json") == 0o600)
        // What an older version left readable by every local account is narrowed at start.
        let old = parent + "/old"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let keys = try JSONEncoder().encode(TestServer.keys)
        #expect(FileManager.default.createFile(atPath: old + "/keys.json", contents: keys, attributes: [.posixPermissions: 0o644]))
        let resolved = try AppKeys.resolve(dataDirectory: old, appId: nil, appKey: nil, masterKey: nil, hookKey: nil)
        #expect(resolved.keys == TestServer.keys && !resolved.generated)
        #expect(try Self.mode(old) == 0o700)
        #expect(try Self.mode(old + "/keys.json") == 0o600)
    }

    @Test func theSQLiteDatabaseIsTheOperatorsAlone() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // SQLite, whichever engine the other tests use: these are its files.
        let sqlite: (inout HostConfiguration) -> Void = { $0.database = nil }
        try await TestServer.run(dataDirectory: directory, configure: sqlite) { api in
            _ = try await api.create("Todo", ["title": "a"])
        }
        let database = directory + "/functionhost.sqlite"
        #expect(try Self.mode(directory) == 0o700)
        #expect(try Self.mode(database) == 0o600)
        // Modes an older version left are narrowed at the next start.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        for file in [database, database + "-wal", database + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        }
        try await TestServer.run(dataDirectory: directory, configure: sqlite) { api async throws in
            #expect(try await api.results("Todo").count == 1)
            #expect(try Self.mode(directory) == 0o700)
            for file in [database, database + "-wal", database + "-shm"] where FileManager.default.fileExists(atPath: file) {
                #expect(try Self.mode(file) == 0o600, "\(file)")
            }
        }
    }
}
