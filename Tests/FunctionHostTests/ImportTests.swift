import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// A LeanCloud export imported, then served: every type comes back as exported, users log in
/// with their old passwords, relations and files work, bad lines are reported, and a second
/// import changes nothing. On SQLite and on PostgreSQL.
@Suite struct ImportTests {
    @Test func anExportImportsAndServesAsItWasExported() async throws {
        let fixture = try ImportFixture.make()
        defer { fixture.remove() }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let summary = try await fixture.importInto(directory)
        #expect(summary.classes["_User"]?.written == 4, "\(summary)")
        #expect(summary.classes["Post"]?.written == 3, "\(summary)")
        #expect(summary.classes["_File"]?.written == 1 && summary.classes["_Role"]?.written == 2, "\(summary)")
        #expect(summary.relationMembers == 4)
        #expect(summary.fileBytesCopied == 1 && summary.fileBytesMissing == 0)
        // The broken lines, each with its file, line and reason; the rest went in.
        let skipped = Set(summary.skipped.map { "\($0.file.split(separator: "/").last!):\($0.line)" })
        #expect(
            skipped == ["_User.0.jsonl:6", "Post.0.jsonl:5", "Post.0.jsonl:6", "_Join:fans:Post.0.jsonl:3"],
            "\(summary.skipped)")
        #expect(summary.skipped.contains { $0.line == 5 && $0.reason.hasPrefix("Malformed JSON") })
        #expect(summary.skipped.contains { $0.line == 6 && $0.reason.hasPrefix("111:") })
        #expect(summary.skipped.contains { $0.reason.contains("137") && $0.reason.contains("username") })
        // The schema file's class permissions are applied, not merely noted.
        #expect(summary.classesWithSettings == ["Post"], "\(summary)")

        try await TestServer.run(dataDirectory: directory) { api in
            // Every value as the export had it.
            let post = try await api.get("/1.1/classes/Post/\(ImportFixture.post)", headers: Headers.master)
            let exported = try JSONValue(parsing: Array(ImportFixture.postLine.utf8))
            for field in ["title", "likes", "ratio", "draft", "tags", "meta", "publishedAt", "raw", "author", "location", "fans", "ACL"] {
                #expect(post[field] == exported[field], "\(field): \(post)")
            }
            #expect(post["createdAt"] == "2020-08-20T03:10:19.512Z" && post["updatedAt"] == "2021-01-04T09:00:00.000Z")
            #expect(post["cover"]?["objectId"] == .string(ImportFixture.file))
            #expect(post["thumb"]?["objectId"] == .string(ImportFixture.file))
            // The ACL still holds: the public may read, not write.
            #expect(try await api.get("/1.1/classes/Post/\(ImportFixture.post)")["title"] == "hello")
            expectError(
                try await api.put("/1.1/classes/Post/\(ImportFixture.post)", ["title": "mine"]), code: 119,
                status: .forbidden)

            // Users log in with the password they had; the wrong one and the 511/513 hashes fail.
            let login = try await api.post("/1.1/login", ["username": "tom", "password": "password"])
            #expect(login.status == .ok && login["objectId"] == .string(ImportFixture.tom), "\(login)")
            #expect(login["password"] == nil && login["salt"] == nil)
            expectError(try await api.post("/1.1/login", ["username": "tom", "password": "Password"]), code: 210, status: .badRequest)
            for name in ["r511", "r513"] {
                expectError(try await api.post("/1.1/login", ["username": .string(name), "password": "password"]), code: 210, status: .badRequest)
            }
            // The session token of the export keeps tom's app logged in.
            let me = try await api.get("/1.1/users/me", headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", ImportFixture.sessionToken)]))
            #expect(me["username"] == "tom" && me["authData"]?["weixin"]?["openid"] == "o1", "\(me)")
            // After the first login the hash is this host's own, and the password still works.
            #expect(try await api.post("/1.1/login", ["username": "tom", "password": "password"]).status == .ok)

            // Relations: the role's users, the post's fans.
            let members = try await api.get(
                "/1.1/users" + queryString(["where": #"{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"\#(ImportFixture.role)"},"key":"users"}}"#]),
                headers: Headers.master)
            #expect(members.results.map { $0["username"] } == ["tom"], "\(members)")
            let fans = try await api.get(
                "/1.1/classes/_User" + queryString(["where": #"{"$relatedTo":{"object":{"__type":"Pointer","className":"Post","objectId":"\#(ImportFixture.post)"},"key":"fans"}}"#, "order": "username"]),
                headers: Headers.master)
            #expect(fans.results.map { $0["username"] } == ["jerry", "tom"], "\(fans)")

            let childRoles = try await api.get(
                "/1.1/roles" + queryString(["where": #"{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"\#(ImportFixture.role)"},"key":"roles"}}"#]),
                headers: Headers.master)
            #expect(childRoles.results.map { $0["name"] } == ["Staff"], "\(childRoles)")

            // Files: the bytes are served here, at the url the file now has.
            let included = try await api.get("/1.1/classes/Post/\(ImportFixture.post)?include=cover", headers: Headers.master)
            #expect(included["cover"]?["url"] == .string("http://files.test/files/\(ImportFixture.fileKey)"), "\(included)")
            #expect(included["cover"]?["name"] == "cover.jpg")
            let download = try await api.get("/files/\(ImportFixture.fileKey)", headers: Headers.none)
            #expect(download.status == .ok && download.text == ImportFixture.fileBytes)

            // The schema file's field is known: a string can't go into it as a number.
            expectError(
                try await api.post("/1.1/classes/Post", headers: Headers.master, ["subtitle": 7]), code: 111,
                status: .badRequest)
        }
        let stored = try await ImportFixture.snapshot(directory)
        #expect(stored["_User"]?.first { $0.objectId == ImportFixture.tom }?.fields["password"]?.stringValue?.hasPrefix("pbkdf2_sha256$") == true)
    }

    @Test func importingTwiceChangesNothing() async throws {
        let fixture = try ImportFixture.make()
        defer { fixture.remove() }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await fixture.importInto(directory)
        let before = try await ImportFixture.snapshot(directory)
        // Once more from the archive, and once from the unpacked folder: the same export.
        for path in [fixture.archive, fixture.folder] {
            let again = try await fixture.importInto(directory, path: path)
            #expect(again.written == 0, "\(again)")
            #expect(again.existing == first.written, "\(again)")
            #expect(try await ImportFixture.snapshot(directory) == before)
        }
        try await TestServer.run(dataDirectory: directory) { api in
            let fans = try await api.get(
                "/1.1/classes/_User" + queryString(["where": #"{"$relatedTo":{"object":{"__type":"Pointer","className":"Post","objectId":"\#(ImportFixture.post)"},"key":"fans"}}"#, "count": "1", "limit": "0"]),
                headers: Headers.master)
            #expect(fans["count"] == 2, "\(fans)")
        }
    }

    @Test func aDamagedArchiveStopsWithAReasonAndKeepsWhatWasImported() async throws {
        let fixture = try ImportFixture.make()
        defer { fixture.remove() }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: fixture.archive))
        let cut = fixture.root + "/cut.tar.gz"
        try whole.prefix(whole.count - 40).write(to: URL(fileURLWithPath: cut))
        await #expect(throws: DataAPIError.self) { _ = try await fixture.importInto(directory, path: cut) }
        // Running the whole archive afterwards completes the database.
        let completed = try await fixture.importInto(directory)
        #expect(completed.written + completed.existing == 10, "\(completed)")
    }
}
