import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `functionhost import`, run as the built executable: an export archive into a data directory
/// (or the test's PostgreSQL schema), and a live server's classes pulled through its Scan API.
@Suite struct ImportCommandTests {
    /// The database options the command needs to write where the test's server will read.
    static func target(_ dataDirectory: String) -> [String] {
        var arguments = ["--data-dir", dataDirectory]
        if let server = ProcessInfo.processInfo.environment["FUNCTIONHOST_TEST_DATABASE_URL"], TestDatabase.isPostgres {
            let separator = server.contains("?") ? "&" : "?"
            arguments += ["--database", server + separator + "schema=" + TestDatabase.schema(for: dataDirectory)]
        }
        return arguments
    }

    @Test func theCommandImportsAnArchiveAndASecondRunChangesNothing() async throws {
        let fixture = try ImportFixture.make()
        defer { fixture.remove() }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments =
            ["import", fixture.archive, "--files", fixture.bytes, "--public-url", "http://files.test/"] + Self.target(directory)

        let first = try await CLI.functionhost(arguments, port: 0)
        #expect(first.status == 0, "\(first)")
        #expect(first.output.contains("Imported 10 new objects"), "\(first)")
        #expect(first.output.contains("Post.0.jsonl:5: Malformed JSON"), "\(first)")
        #expect(first.output.contains("file bytes: 1 served here"), "\(first)")
        #expect(first.output.contains("class settings (permissions, field flags): 1 classes (Post)"), "\(first)")

        let second = try await CLI.functionhost(arguments + ["--json"], port: 0)
        #expect(second.status == 0, "\(second)")
        let summary = try JSONValue(parsing: Array(second.output.utf8))
        #expect(summary["written"] == 0 && summary["existing"] == 10, "\(second)")
        #expect(summary["skippedCount"] == 4)
        #expect(summary["relationMembers"] == 4)
        #expect(summary["classSettings"] == ["Post"], "\(second)")

        try await TestServer.run(dataDirectory: directory) { api in
            let login = try await api.post("/1.1/login", ["username": "tom", "password": "password"])
            #expect(login.status == .ok, "\(login)")
        }
    }

    @Test func badArgumentsAndMissingFilesFailWithOneLine() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let neither = try await CLI.functionhost(["import", "--data-dir", directory], port: 0)
        #expect(neither.status != 0 && neither.errors.contains("either an export PATH or --from-server"), "\(neither)")
        let missing = try await CLI.functionhost(["import", directory + "/nothing.tar.gz"] + Self.target(directory), port: 0)
        #expect(missing.status == 1 && missing.errors.contains("does not exist"), "\(missing)")
        let noURL = try await CLI.functionhost(["import", directory, "--files", directory], port: 0)
        #expect(noURL.status != 0 && noURL.errors.contains("--public-url"), "\(noURL)")
    }

    @Test func aLiveServersClassesArePulledThroughTheScanAPI() async throws {
        let source = try TestServer.makeDataDirectory()
        let destination = try TestServer.makeDataDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: source)
            try? FileManager.default.removeItem(atPath: destination)
        }
        // The source app: a user, 1 500 todos (two scan pages) pointing at it, a role holding it.
        let (userId, todoIds, roleId) = try await TestServer.run(dataDirectory: source) { api in
            let user = try await api.post("/1.1/users", ["username": "ann", "password": "secret1"])
            let userId = try #require(user.objectId, "\(user)")
            var requests: [JSONValue] = []
            for index in 0..<1500 {
                requests.append([
                    "method": "POST", "path": "/1.1/classes/Todo",
                    "body": [
                        "n": .int(Int64(index)), "owner": pointer("_User", userId),
                        "due": date("2027-01-12T00:00:00.000Z"), "spot": ["__type": "GeoPoint", "latitude": 1.5, "longitude": 2.5],
                    ],
                ])
            }
            var todoIds: [String] = []
            for start in stride(from: 0, to: requests.count, by: 100) {
                let batch = try await api.post(
                    "/1.1/batch", headers: Headers.master, ["requests": .array(Array(requests[start..<start + 100]))])
                todoIds += batch.json?.arrayValue?.compactMap { $0["success"]?["objectId"]?.stringValue } ?? []
            }
            let role = try await api.post(
                "/1.1/roles", headers: Headers.master,
                ["name": "Editors", "ACL": ["*": ["read": true]], "users": op("AddRelation", ["objects": [pointer("_User", userId)]])])
            let closed = try await api.put(
                "/1.1/schemas/Todo", headers: Headers.master,
                ["permissions": ["find": ["onlySignInUsers": true]], "schema": ["n": ["read_only": true]]])
            #expect(closed.status == .ok, "\(closed)")
            return (userId, todoIds, try #require(role.objectId, "\(role)"))
        }
        #expect(todoIds.count == 1500)

        let bytes = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: bytes) }
        let (pulled, fileKey) = try await TestServer.run(dataDirectory: source, transport: .socket) { api in
            // A file whose url is this running server's, so its bytes can be downloaded.
            let file = try await api.send(
                .post, "/1.1/files/notes.txt", headers: FileFixture.typed("text/plain"), body: "file bytes to move")
            let key = try #require(file["key"]?.stringValue, "\(file)")
            // The test client's Host is `localhost`, without the port: give the url the one it has.
            let moved = try await api.put(
                "/1.1/classes/_File/\(try #require(file.objectId))", headers: Headers.master,
                ["url": .string("http://127.0.0.1:\(api.port)/files/\(key)")])
            #expect(moved.status == .ok, "\(moved)")
            let run = try await CLI.functionhost(
                ["import", "--from-server", "http://127.0.0.1:\(api.port)", "--app-id", "app", "--master-key", "master",
                 "--files", bytes, "--download-files", "--download-allow", "127.0.0.1:\(api.port)", "--public-url",
                 "https://new.example.com"]
                    + Self.target(destination), port: api.port)
            return (run, key)
        }
        #expect(pulled.status == 0, "\(pulled)")
        #expect(pulled.output.contains("file bytes: 1 served here, 0 not found"), "\(pulled)")
        #expect(pulled.output.contains("Todo: 1500 new"), "\(pulled)")
        #expect(pulled.output.contains("relation members: 1"), "\(pulled)")
        #expect(pulled.output.contains("password reset"), "\(pulled)")
        #expect(pulled.output.contains("class settings (permissions, field flags): 1 classes (Todo)"), "\(pulled)")

        let before = try await ImportFixture.snapshot(source)
        let after = try await ImportFixture.snapshot(destination)
        #expect(after["Todo"]?.count == 1000, "one scan page of the snapshot")
        #expect(after["Todo"] == before["Todo"])
        #expect(after["_Role"]?.map(\.objectId) == [roleId])

        try await TestServer.run(dataDirectory: destination) { api in
            let count = try await api.get("/1.1/classes/Todo?count=1&limit=0", headers: Headers.master)
            #expect(count["count"] == 1500)
            // The source's class settings came along.
            let settings = try await api.get("/1.1/schemas/Todo/permissions", headers: Headers.master)
            #expect(settings["permissions"]?["find"] == ["onlySignInUsers": true], "\(settings)")
            #expect(settings["schema"] == ["n": ["read_only": true]], "\(settings)")
            expectError(try await api.find("Todo"), code: 403, status: .forbidden)
            let members = try await api.get(
                "/1.1/users" + queryString(["where": #"{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"\#(roleId)"},"key":"users"}}"#]),
                headers: Headers.master)
            #expect(members.results.map { $0["objectId"] } == [.string(userId)], "\(members)")
            let download = try await api.get("/files/\(fileKey)", headers: Headers.none)
            #expect(download.status == .ok && download.text == "file bytes to move", "\(download)")
            let file = try await api.find("_File", ["where": #"{"key":"\#(fileKey)"}"#], headers: Headers.master)
            #expect(file.results.first?["url"] == .string("https://new.example.com/files/\(fileKey)"), "\(file)")
            // Without its hash, the pulled user can't log in with the old password.
            expectError(try await api.post("/1.1/login", ["username": "ann", "password": "secret1"]), code: 210)
        }
    }
}
