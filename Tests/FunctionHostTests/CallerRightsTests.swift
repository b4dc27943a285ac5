import DataAPI
import Foundation
import HTTPTypes
import Hooks
import TestSupport
import Testing

@testable import FunctionHost

/// Swift functions and hooks act as their caller unless they ask for the master key, and
/// classes can carry a default ACL.
@Suite struct CallerRightsTests {
    @Test func swiftFunctionsActAsTheirCallerUntilTheyAskForTheMasterKey() async throws {
        var functions = FunctionRegistry()
        functions.define("countNotes") { request in
            let visible = try await request.data.find("Note").count
            let all = try await request.data.asMaster.find("Note").count
            return ["visible": .int(Int64(visible)), "all": .int(Int64(all))]
        }
        functions.define("editNote") { request in
            let id = request.params["id"]?.stringValue ?? ""
            return .object(try await request.data.update("Note", id: id, ["text": "edited"]).restJSON())
        }
        try await TestServer.run(functions: functions) { api in
            let people = try await ACLTests.people(api)
            let note = try await api.create(
                "Note", ["text": "ada's", "ACL": .object([people.ada: ["read": true, "write": true]])], headers: people.adaSession)
            _ = try await api.create("Note", ["text": "public"])
            let asBob = try await api.post("/1.1/functions/countNotes", headers: people.bobSession, [:])
            #expect(asBob["result"] == ["visible": 1, "all": 2], "\(asBob)")
            let asAda = try await api.post("/1.1/functions/countNotes", headers: people.adaSession, [:])
            #expect(asAda["result"] == ["visible": 2, "all": 2], "\(asAda)")
            let asMaster = try await api.post("/1.1/functions/countNotes", headers: Headers.master, [:])
            #expect(asMaster["result"] == ["visible": 2, "all": 2], "\(asMaster)")
            expectError(try await api.post("/1.1/functions/editNote", headers: people.bobSession, ["id": .string(note)]), code: 119)
            #expect(try await api.post("/1.1/functions/editNote", headers: people.adaSession, ["id": .string(note)]).status == .ok)
        }
    }

    @Test func swiftHooksActAsTheRequestsCaller() async throws {
        var functions = FunctionRegistry()
        functions.hooks.afterSave("Comment") { request in
            // A client's comment can't touch the locked counter; the master key can.
            let counter = request.object["counter"]?.stringValue ?? ""
            do {
                _ = try await request.data.update("Counter", id: counter, ["n": ["__op": "Increment", "amount": 1]])
            } catch {
                _ = try await request.data.asMaster.update("Counter", id: counter, ["n": ["__op": "Increment", "amount": 10]])
            }
        }
        try await TestServer.run(functions: functions) { api in
            let counter = try await api.create("Counter", ["n": 0, "ACL": [:]], headers: Headers.master)
            _ = try await api.create("Comment", ["counter": .string(counter)])
            #expect(try await api.fetch("Counter", counter, headers: Headers.master)["n"] == 10)
            _ = try await api.create("Comment", ["counter": .string(counter)], headers: Headers.master)
            #expect(try await api.fetch("Counter", counter, headers: Headers.master)["n"] == 11)
        }
    }

    @Test func aClassDefaultACLAppliesWhenTheCreatorGivesNone() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory,
            configure: { $0.defaultACLs = ["Diary": ["creator": ["read": true, "write": true]], "Post": ["*": ["read": true], "creator": ["write": true]]] }
        ) { api in
            let people = try await ACLTests.people(api)
            let diary = try await api.create("Diary", ["text": "secret"], headers: people.adaSession)
            #expect(try await api.fetch("Diary", diary, headers: people.adaSession)["text"] == "secret")
            #expect(try await api.fetch("Diary", diary, headers: people.bobSession) == [:])
            let post = try await api.create("Post", ["text": "hello"], headers: people.adaSession)
            let stored = try await api.fetch("Post", post, headers: people.bobSession)
            #expect(stored["ACL"] == .object(["*": ["read": true], people.ada: ["write": true]]), "\(stored)")
            expectError(try await api.put("/1.1/classes/Post/\(post)", headers: people.bobSession, ["text": "mine"]), code: 119)
            // An ACL given explicitly wins; anonymous creators get no creator entry.
            let open = try await api.create("Diary", ["text": "open", "ACL": ["*": ["read": true]]], headers: people.adaSession)
            #expect(try await api.fetch("Diary", open, headers: people.bobSession)["text"] == "open")
            let anonymous = try await api.create("Post", ["text": "anon"])
            #expect(try await api.fetch("Post", anonymous)["ACL"] == ["*": ["read": true]])
        }
    }
}
