import DataAPI
import Foundation
import HTTPTypes
import Hooks
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// Hears every committed write, in order, as LiveQuery and jobs will.
final class WriteRecorder: WriteListener {
    private let heard = Mutex<[String]>([])

    func didWrite(_ kind: WriteKind, _ event: ObjectEvent) async {
        let id = event.object["objectId"]?.stringValue ?? "?"
        heard.withLock { $0.append("\(kind.rawValue) \(event.className) \(id)") }
    }

    /// What was heard so far, and forgets it.
    func take() -> [String] {
        heard.withLock { heard in
            defer { heard = [] }
            return heard
        }
    }
}

/// The one seam where writes meet hooks: every write path produces one event, runs its hooks
/// there, and is heard by the write listeners, whether or not hooks ran.
@Suite struct WriteEventTests {
    @Test func everyWritePathIsHeardOnceWithTheStoredObject() async throws {
        let recorder = WriteRecorder()
        let script = """
            AV.Cloud.define('makeNote', async (request) => {
              const note = new AV.Object('Note');
              note.set('text', 'from a script');
              await note.save(null, { useMasterKey: true });
              return note.id;
            });
            """
        try await JSDataServer.run(["cloud.js": script], configure: { $0.writeListeners = [recorder] }) { api in
            // REST create, update, delete.
            let id = try await api.create("Note", ["text": "rest"])
            _ = try await api.put("/1.1/classes/Note/\(id)", ["text": "edited"])
            _ = try await api.delete("/1.1/classes/Note/\(id)")
            #expect(recorder.take() == ["create Note \(id)", "update Note \(id)", "delete Note \(id)"])

            // Batch.
            let batch = try await api.post(
                "/1.1/batch", ["requests": [["method": "POST", "path": "/1.1/classes/Note", "body": ["text": "batched"]]]])
            let batched = try #require(batch.json?.arrayValue?.first?["success"]?["objectId"]?.stringValue, "\(batch)")
            #expect(recorder.take() == ["create Note \(batched)"])

            // A signup.
            let signup = try await api.post("/1.1/users", ["username": "ada", "password": "secret-1"])
            let user = try #require(signup.objectId, "\(signup)")
            #expect(recorder.take() == ["create _User \(user)"])

            // A file upload writes its `_File` object.
            let file = try await FileFixture.upload(api, "a.txt", "hello")
            let fileId = try #require(file["objectId"]?.stringValue, "\(file)")
            #expect(recorder.take() == ["create _File \(fileId)"])

            // Cloud code's data API.
            let made = try await api.post("/1.1/functions/makeNote", [:])
            let scripted = try #require(made["result"]?.stringValue, "\(made)")
            #expect(recorder.take() == ["create Note \(scripted)"])

            // Internal bookkeeping (class settings) is no app write: nobody hears it.
            _ = try await api.put("/1.1/schemas/Note", headers: Headers.master, ["permissions": ["find": ["*": true]]])
            #expect(recorder.take() == [])
        }
    }

    @Test func aWriteThatSkipsItsHooksIsStillHeardAndItsAfterHookDoesNotRun() async throws {
        let recorder = WriteRecorder()
        let afterSaves = Mutex(0)
        var functions = FunctionRegistry()
        functions.hooks.beforeSave("Note") { request in request.object["stamped"] = true }
        functions.hooks.afterSave("Note") { _ in afterSaves.withLock { $0 += 1 } }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, functions: functions, configure: { $0.writeListeners = [recorder] }
        ) { api in
            let hooked = try await api.create("Note", ["text": "a"])
            #expect(afterSaves.withLock { $0 } == 1)
            let skipped = try await api.create(
                "Note", ["text": "b", "__ignore_hooks": ["beforeSave", "afterSave"]], headers: Headers.master)
            #expect(afterSaves.withLock { $0 } == 1, "afterSave was skipped")
            #expect(try await api.fetch("Note", hooked, headers: Headers.master)["stamped"] == true)
            #expect(try await api.fetch("Note", skipped, headers: Headers.master)["stamped"] == nil)
            #expect(recorder.take() == ["create Note \(hooked)", "create Note \(skipped)"])
        }
    }

    @Test func aLoginRunsItsHookThroughTheSameGateAndARefusalIsUnauthorized() async throws {
        // onLogin runs through the data service's one hook runner, as writes' hooks do; which
        // hook refused decides the status (the host's mapping), not the Hooks module.
        let logins = Mutex(0)
        var functions = FunctionRegistry()
        functions.hooks.onLogin { request in
            logins.withLock { $0 += 1 }
            if request.object["username"] == "blocked" { throw HookError(code: 219, message: "Not you.") }
        }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, functions: functions) { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "secret-1"])
            _ = try await api.post("/1.1/users", ["username": "blocked", "password": "secret-1"])
            let ada = try await api.post("/1.1/login", ["username": "ada", "password": "secret-1"])
            #expect(ada.status == .ok, "\(ada)")
            let blocked = try await api.post("/1.1/login", ["username": "blocked", "password": "secret-1"])
            // A refused login is unauthorized, with the hook's own code.
            #expect(blocked.status == .unauthorized && blocked.json?["code"] == 219, "\(blocked)")
            #expect(logins.withLock { $0 } == 2)
        }
    }
}
