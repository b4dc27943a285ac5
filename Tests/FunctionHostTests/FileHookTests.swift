import DataAPI
import Foundation
import HTTPTypes
import Hooks
import Testing

@testable import FunctionHost

@Suite struct FileHookTests {
    private static var textUpload: HTTPFields {
        var headers = Headers.client
        headers[.contentType] = "text/plain"
        return headers
    }

    @Test func swiftFileHooksRenameRefuseAndSeeEveryStep() async throws {
        let events = Recorded<String>()
        var functions = FunctionRegistry()
        functions.hooks.beforeSaveFile { request in
            guard request.object["name"]?.stringValue != "virus.exe" else {
                throw HookError(code: 142, message: "No executables.")
            }
            request.object["name"] = .string("renamed-" + (request.object["name"]?.stringValue ?? ""))
            events.record("beforeSave \(request.object["size"]?.intValue ?? -1)")
        }
        functions.hooks.afterSaveFile { request in events.record("afterSave \(request.object["name"]?.stringValue ?? "")") }
        functions.hooks.beforeDeleteFile { request in
            if request.object["name"]?.stringValue == "renamed-keep.txt" { throw HookError(code: 142, message: "Kept.") }
            events.record("beforeDelete")
        }
        functions.hooks.afterDeleteFile { _ in events.record("afterDelete") }
        try await TestServer.run(functions: functions) { api in
            let refused = try await api.send(.post, "/1.1/files/virus.exe", headers: Self.textUpload, body: "MZ")
            expectError(refused, code: 142)
            #expect(refused.json?["error"] == "No executables.")
            let count = try await api.count("_File")
            #expect(count == nil || count == 0)

            let saved = try await api.send(.post, "/1.1/files/notes.txt", headers: Self.textUpload, body: "notes")
            #expect(saved.json?["name"] == "renamed-notes.txt")
            let id = try #require(saved.json?["objectId"]?.stringValue)
            #expect(try await api.delete("/1.1/files/\(id)", headers: Headers.master).status == .ok)

            let kept = try await api.send(.post, "/1.1/files/keep.txt", headers: Self.textUpload, body: "k")
            let keptId = try #require(kept.json?["objectId"]?.stringValue)
            expectError(try await api.delete("/1.1/files/\(keptId)", headers: Headers.master), code: 142)
            #expect(try await api.get("/1.1/files/\(keptId)").status == .ok)
        }
        #expect(
            events.all == [
                "beforeSave 5", "afterSave renamed-notes.txt", "beforeDelete", "afterDelete", "beforeSave 1",
                "afterSave renamed-keep.txt",
            ])
    }

    @Test func javaScriptFileHooksRenameAndRefuse() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
            AV.Cloud.beforeSaveFile(function (request) {
              if (request.file.name === 'secret.txt') throw new AV.Cloud.Error('Not that one.', { code: 142 });
              request.file.name = 'js-' + request.file.name;
              request.file.metaData.checkedBy = 'js';
            });
            AV.Cloud.beforeDeleteFile(function (request) {
              throw new AV.Cloud.Error('Files stay.', { code: 142 });
            });
            """
        try script.write(toFile: directory + "/files.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory) { api in
            let saved = try await api.send(.post, "/1.1/files/a.txt", headers: Self.textUpload, body: "a")
            #expect(saved.status == .created)
            #expect(saved.json?["name"] == "js-a.txt")
            #expect(saved.json?["metaData"]?["checkedBy"] == "js")
            let refused = try await api.send(.post, "/1.1/files/secret.txt", headers: Self.textUpload, body: "s")
            expectError(refused, code: 142)
            #expect(refused.json?["error"] == "Not that one.")
            let id = try #require(saved.json?["objectId"]?.stringValue)
            expectError(try await api.delete("/1.1/files/\(id)", headers: Headers.master), code: 142)
            // The token flow runs the same before-hook, when the token is asked for.
            let token = try await api.post("/1.1/fileTokens", ["name": "b.png"])
            #expect(token.json?["name"] == "js-b.png")
        }
    }
}
