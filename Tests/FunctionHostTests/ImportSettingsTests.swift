import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// The class permissions and field flags of a LeanCloud schema export, imported: a class the
/// old console closed is closed here, a hidden field is not answered, and importing again
/// changes nothing. On SQLite and on PostgreSQL.
@Suite struct ImportSettingsTests {
    static let secret = "5f3dea7b7a53400006b1aaaa"

    /// An export with one class's objects and its `_schema.json` and `_permissions.json`, and
    /// another class known only by its `_all.json` (lists written as strings, as some exports do).
    static func export() throws -> ImportFixture {
        let fixture = ImportFixture(root: try TestServer.makeDataDirectory() + "-export")
        let files = [
            "Secret.0.jsonl": #"""
                #filetype:JSON-streaming {"type":"Class","class":"Secret"}
                {"objectId":"\#(secret)","createdAt":"2020-08-20T03:10:19.512Z","updatedAt":"2020-08-20T03:10:19.512Z","ACL":{"*":{"read":true,"write":true}},"title":"hello","code":"1234"}
                """#,
            "Secret_schema.json": #"""
                {"schema":{"objectId":{"type":"String"},"title":{"type":"String","hidden":false,"read_only":false},"code":{"type":"String","hidden":true,"read_only":false,"user_private":false,"comment":"never shown"}}}
                """#,
            "Secret_permissions.json": #"""
                {"permissions":{"get":{"*":true},"find":{"roles":[],"users":[]},"create":{"onlySignInUsers":true},"update":{"*":true},"delete":{"*":true},"add_fields":{"roles":[],"users":[]}}}
                """#,
            "Note_all.json": #"""
                {"schema":{"body":{"type":"String","read_only":true}},"permissions":{"delete":{"roles":"admin","users":""}},"indexes":[{"name":"body_1","key":{"body":1},"unique":true}]}
                """#,
        ]
        for (name, text) in files { try ImportFixture.write(text + "\n", to: fixture.folder + "/" + name) }
        return fixture
    }

    @Test func exportedPermissionsAndFieldFlagsAreEnforcedAfterImport() async throws {
        let fixture = try Self.export()
        defer { fixture.remove() }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let summary = try await fixture.importInto(directory, path: fixture.folder)
        #expect(summary.classesWithSettings == ["Secret", "Note"], "\(summary)")
        #expect(summary.skippedCount == 0, "\(summary.skipped)")
        #expect(!summary.notes.contains { $0.contains("permissions") }, "\(summary.notes)")

        try await TestServer.run(dataDirectory: directory) { api in
            let find = try await api.find("Secret")
            expectError(find, code: 403, status: .forbidden)
            #expect(find["error"] == "Forbidden to find by class permissions.", "\(find)")
            // get stays open; the hidden field is not answered, nor may a client query by it.
            let object = try await api.fetch("Secret", Self.secret)
            #expect(object["title"] == "hello" && object["code"] == nil, "\(object)")
            #expect(try await api.fetch("Secret", Self.secret, headers: Headers.master)["code"] == "1234")
            let create = try await api.post("/1.1/classes/Secret", ["title": "new"])
            expectError(create, code: 403, status: .forbidden)
            #expect(create["error"] == "Forbidden to create by class permissions.", "\(create)")
            // add_fields closed: a field the class doesn't have yet is refused, a known one is not.
            expectError(
                try await api.put("/1.1/classes/Secret/\(Self.secret)", ["color": "red"]), code: 403, status: .forbidden)
            #expect(try await api.put("/1.1/classes/Secret/\(Self.secret)", ["title": "changed"]).status == .ok)

            // The class only an `_all.json` names: its read-only field and closed delete.
            expectError(try await api.post("/1.1/classes/Note", ["body": "mine"]), code: 117, status: .badRequest)
            let note = try await api.create("Note", ["other": 1, "ACL": ["*": ["read": true, "write": true]]])
            let delete = try await api.delete("/1.1/classes/Note/\(note)")
            expectError(delete, code: 403, status: .forbidden)
            #expect(delete["error"] == "Forbidden to delete by class permissions.", "\(delete)")
            let settings = try await api.get("/1.1/schemas/Note/permissions", headers: Headers.master)
            #expect(settings["permissions"]?["delete"] == ["users": [], "roles": ["admin"]], "\(settings)")
            #expect(settings["schema"] == ["body": ["read_only": true]], "\(settings)")
        }

        // A second import finds the settings in force and writes nothing.
        let before = try await ImportFixture.snapshot(directory)
        let again = try await fixture.importInto(directory, path: fixture.folder)
        #expect(again.classesWithSettings == ["Secret", "Note"])
        #expect(try await ImportFixture.snapshot(directory) == before)
    }

    @Test func settingsTheHostRefusesAreListedAndTheRestImports() async throws {
        let fixture = ImportFixture(root: try TestServer.makeDataDirectory() + "-export")
        defer { fixture.remove() }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ImportFixture.write(#"{"permissions":{"find":{"*":true},"fly":{"*":true}}}"#, to: fixture.folder + "/Post_permissions.json")
        try ImportFixture.write(#"{"schema":{"a":{"hidden":"yes"}}}"#, to: fixture.folder + "/Tag_schema.json")
        try ImportFixture.write(#"{"permissions":{"find":{"onlySignInUsers":true}}}"#, to: fixture.folder + "/Todo_permissions.json")
        // LeanCloud's default for users, which this host doesn't share: applied, and pointed out.
        try ImportFixture.write(#"{"permissions":{"find":{"*":true}}}"#, to: fixture.folder + "/_User_permissions.json")

        let summary = try await fixture.importInto(directory, path: fixture.folder)
        #expect(summary.classesWithSettings == ["Todo", "_User"], "\(summary)")
        #expect(summary.notes.contains { $0.contains("_User find is open to everyone") }, "\(summary.notes)")
        #expect(summary.skipped.contains { $0.file.hasSuffix("Post_permissions.json") && $0.reason.contains("fly") }, "\(summary.skipped)")
        #expect(summary.skipped.contains { $0.file.hasSuffix("Tag_schema.json") && $0.reason.hasPrefix("107:") }, "\(summary.skipped)")
        try await TestServer.run(dataDirectory: directory) { api in
            let settings = try await api.get("/1.1/schemas/Todo/permissions", headers: Headers.master)
            #expect(settings["permissions"]?["find"] == ["onlySignInUsers": true], "\(settings)")
            _ = try await api.post("/1.1/users", ["username": "ann", "password": "secret1"])
            #expect(try await api.find("_User").results.count == 1)
        }
    }
}
