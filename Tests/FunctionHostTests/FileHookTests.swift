import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import Hooks
import HummingbirdTesting
import JSON
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// The file hooks, from Swift and from JavaScript.
@Suite struct FileHookTests {
    @Test func swiftBeforeSaveFileSeesTheFileAndMayReshapeIt() async throws {
        let seen = Recorded<JSONValue>()
        var functions = FunctionRegistry()
        functions.hooks.beforeSaveFile { request in
            seen.record(
                .object([
                    "name": request.object["name"] ?? .null, "mime_type": request.object["mime_type"] ?? .null,
                    "metaData": request.object["metaData"] ?? .null, "size": request.object["size"] ?? .null,
                    "user": request.user?["objectId"] ?? .null,
                ]))
            request.object["name"] = "renamed.txt"
            request.object["metaData"] = ["checked": true]
        }
        try await FileFixture.run(functions: functions) { api, _ in
            let ada = try await FileFixture.signUp(api, "ada")
            let file = try await FileFixture.upload(api, "original.md", "# hi", type: "text/markdown", headers: ada.session)
            #expect(file["name"] == "renamed.txt")
            #expect(file["key"]?.stringValue?.hasSuffix(".txt") == true, "the key follows the new name: \(file)")
            #expect(file["mime_type"] == "text/markdown")
            #expect(file["metaData"]?["checked"] == true)
            #expect(file["metaData"]?["size"] == 4)
            #expect(file["metaData"]?["owner"] == .string(ada.id))
            let download = try await api.get(try FileFixture.path(file["url"]), headers: Headers.none)
            #expect(download.text == "# hi")
            #expect(
                seen.all == [
                    [
                        "name": "original.md", "mime_type": "text/markdown", "metaData": [:], "size": 4,
                        "user": .string(ada.id),
                    ]
                ])
        }
    }

    @Test func swiftBeforeSaveFileRefusesAndNothingIsStored() async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeSaveFile { request in
            if request.object["name"]?.stringValue?.hasSuffix(".exe") == true {
                throw HookError(code: 142, message: "No executables.")
            }
            if request.object["name"] == "slash.txt" { request.object["name"] = "a/b" }
        }
        try await FileFixture.run(functions: functions) { api, directory in
            let refused = try await api.send(.post, "/1.1/files/virus.exe", headers: FileFixture.typed("text/plain"), body: "MZ")
            expectError(refused, code: 142)
            #expect(refused["error"] == "No executables.")
            // The token flow asks when the token is issued, the external form when it is posted.
            let token = try await api.post("/1.1/fileTokens", ["name": "virus.exe"])
            expectError(token, code: 142)
            #expect(token["error"] == "No executables.")
            let external = try await api.post("/1.1/files", ["name": "virus.exe", "url": "https://example.com/v.exe"])
            expectError(external, code: 142)
            // A hook can't rename a file to an invalid name.
            expectError(try await api.send(.post, "/1.1/files/slash.txt", headers: FileFixture.typed("text/plain"), body: "s"), code: 122)
            #expect(try await FileFixture.fileCount(api) == 0)
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            #expect(try FileFixture.incoming(directory).isEmpty)
            // Other files are fine.
            #expect(try await FileFixture.upload(api, "fine.txt", "ok")["name"] == "fine.txt")
        }
    }

    @Test func swiftAfterSaveFileSeesTheStoredFileAndTheBeforeHooksContext() async throws {
        let seen = Recorded<String>()
        let failures = Recorded<HookDispatcher.Failure>()
        var functions = FunctionRegistry()
        functions.hooks.beforeSaveFile { request in
            request.context["from"] = .string("before " + (request.object["name"]?.stringValue ?? ""))
        }
        functions.hooks.afterSaveFile { request in
            let id = request.object["objectId"]?.stringValue ?? "-"
            let url = request.object["url"]?.stringValue ?? "-"
            let size = request.object["metaData"]?["size"]?.intValue ?? -1
            seen.record("\(request.context["from"]?.stringValue ?? "-") \(id) \(url) \(size)")
            if request.object["name"] == "fails.txt" { throw HookError(message: "after hooks can't refuse") }
        }
        try await FileFixture.run(functions: functions, configure: { $0.onAfterHookFailure = { failures.record($0) } }) { api, _ in
            let file = try await FileFixture.upload(api, "a.txt", "abc")
            let id = try #require(file["objectId"]?.stringValue)
            let url = try #require(file["url"]?.stringValue)
            #expect(seen.all == ["before a.txt \(id) \(url) 3"])

            // The token flow: the before-hook ran at issue; its context reaches the after-hook at the PUT.
            let issued = try await api.post("/1.1/fileTokens", ["name": "t.txt"])
            let tokenId = try #require(issued["objectId"]?.stringValue)
            #expect(seen.all.count == 1, "nothing is saved before the bytes arrive")
            _ = try await api.send(
                .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: "tt")
            #expect(seen.all.last == "before t.txt \(tokenId) \(try #require(issued["url"]?.stringValue)) 2", "\(seen.all)")

            // A failing after-hook leaves the file stored.
            let kept = try await FileFixture.upload(api, "fails.txt", "f")
            #expect(try await api.get(try FileFixture.path(kept["url"]), headers: Headers.none).text == "f")
            #expect(failures.all.map(\.kind) == [.afterSaveFile])
        }
    }

    @Test func swiftDeleteHooksMayKeepAFileAndRunAroundItsRemoval() async throws {
        let events = Recorded<String>()
        let filesDirectory = Recorded<String>()
        var functions = FunctionRegistry()
        @Sendable func onDisk(_ request: HookRequest) -> Bool {
            guard let directory = filesDirectory.all.first, let key = request.object["key"]?.stringValue else { return false }
            return FileManager.default.fileExists(atPath: directory + "/files/" + key)
        }
        functions.hooks.beforeDeleteFile { request in
            let name = request.object["name"]?.stringValue ?? "-"
            events.record("beforeDelete \(name) onDisk=\(onDisk(request))")
            if name == "keep.txt" { throw HookError(code: 142, message: "Kept.") }
        }
        functions.hooks.afterDeleteFile { request in
            events.record("afterDelete \(request.object["name"]?.stringValue ?? "-") onDisk=\(onDisk(request))")
        }
        try await FileFixture.run(functions: functions) { api, directory in
            filesDirectory.record(directory)
            let keep = try await FileFixture.upload(api, "keep.txt", "k")
            let keepId = try #require(keep["objectId"]?.stringValue)
            let refused = try await api.delete("/1.1/files/\(keepId)", headers: Headers.master)
            expectError(refused, code: 142)
            #expect(refused["error"] == "Kept.")
            #expect(try await api.get("/1.1/files/\(keepId)").status == .ok)
            #expect(try await api.get(try FileFixture.path(keep["url"]), headers: Headers.none).text == "k")

            let drop = try await FileFixture.upload(api, "drop.txt", "d")
            let dropId = try #require(drop["objectId"]?.stringValue)
            #expect(try await api.delete("/1.1/files/\(dropId)", headers: Headers.master).status == .ok)
            #expect(try await api.get(try FileFixture.path(drop["url"]), headers: Headers.none).status == .notFound)
            #expect(
                events.all == [
                    "beforeDelete keep.txt onDisk=true", "beforeDelete drop.txt onDisk=true", "afterDelete drop.txt onDisk=false",
                ])
        }
    }

    @Test func javaScriptFileHooksSeeRenameRefuseAndFollowDeletes() async throws {
        let code = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: code) }
        let script = """
            AV.Cloud.beforeSaveFile(function (request) {
              var file = request.file;
              if (file.name === 'secret.txt') throw new AV.Cloud.Error('Not that one.', { code: 142 });
              file.metaData.seen = file.name + ' ' + file.mime_type + ' ' + file.size;
              file.name = 'js-' + file.name;
            });
            AV.Cloud.afterSaveFile(function (request) {
              return new AV.Object('FileLog').save({ event: 'afterSave', name: request.file.name,
                file: request.file.objectId, url: request.file.url });
            });
            AV.Cloud.beforeDeleteFile(function (request) {
              if (request.file.name === 'js-keep.txt') throw new AV.Cloud.Error('Files stay.', { code: 142 });
            });
            AV.Cloud.afterDeleteFile(function (request) {
              return new AV.Object('FileLog').save({ event: 'afterDelete', name: request.file.name,
                file: request.file.objectId });
            });
            """
        try script.write(toFile: code + "/files.js", atomically: true, encoding: .utf8)
        try await FileFixture.run(functionsDirectory: code) { api, directory in
            let saved = try await FileFixture.upload(api, "a.txt", "abcd")
            #expect(saved["name"] == "js-a.txt")
            #expect(saved["metaData"]?["seen"] == "a.txt text/plain 4", "\(saved)")
            #expect(try await api.get(try FileFixture.path(saved["url"]), headers: Headers.none).text == "abcd")
            let id = try #require(saved["objectId"]?.stringValue)

            let refused = try await api.send(.post, "/1.1/files/secret.txt", headers: FileFixture.typed("text/plain"), body: "s")
            expectError(refused, code: 142)
            #expect(refused["error"] == "Not that one.")
            #expect(try await FileFixture.fileCount(api) == 1)
            #expect(try FileFixture.incoming(directory).isEmpty)

            let keep = try await FileFixture.upload(api, "keep.txt", "k")
            let keepId = try #require(keep["objectId"]?.stringValue)
            let kept = try await api.delete("/1.1/files/\(keepId)", headers: Headers.master)
            expectError(kept, code: 142)
            #expect(kept["error"] == "Files stay.")
            #expect(try await api.get(try FileFixture.path(keep["url"]), headers: Headers.none).text == "k")

            #expect(try await api.delete("/1.1/files/\(id)", headers: Headers.master).status == .ok)
            #expect(try await api.get(try FileFixture.path(saved["url"]), headers: Headers.none).status == .notFound)

            let logs = try await api.results("FileLog", ["order": "createdAt"])
            let summary = logs.map { "\($0["event"]?.stringValue ?? "-") \($0["name"]?.stringValue ?? "-")" }
            #expect(summary == ["afterSave js-a.txt", "afterSave js-keep.txt", "afterDelete js-a.txt"], "\(logs)")
            #expect(logs.first?["file"] == .string(id) && logs.first?["url"] == saved["url"], "\(logs)")
            #expect(logs.last?["file"] == .string(id))
        }
    }
}
