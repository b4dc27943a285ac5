import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Each class-level permission on the routes besides plain REST: `/batch`, `/batch/save`, CQL,
/// subqueries and `include`. One representative rule per route (the forms themselves are
/// covered in `ClassPermissionTests`): a caller it names gets through, one it doesn't gets
/// LeanCloud's 403, and the master key always gets through.
@Suite struct ClassPermissionRouteTests {
    static let nobody: JSONValue = ["users": [], "roles": []]

    /// One `/batch` request.
    static func item(_ method: String, _ path: String, _ body: JSONValue? = nil) -> JSONValue {
        var item: [String: JSONValue] = ["method": .string(method), "path": .string(path)]
        if let body { item["body"] = body }
        return .object(item)
    }

    /// A `/batch` doing each action once: get, find, create, update, delete on `Note`, and a
    /// create adding the field `newField` to `Memo`.
    static func everyAction(note: String, doomed: String, newField: String) -> JSONValue {
        [
            "requests": [
                item("GET", "/1.1/classes/Note/\(note)"),
                item("GET", "/1.1/classes/Note"),
                item("POST", "/1.1/classes/Note", ["text": "batch"]),
                item("PUT", "/1.1/classes/Note/\(note)", ["text": "seed"]),
                item("DELETE", "/1.1/classes/Note/\(doomed)"),
                item("POST", "/1.1/classes/Memo", ["text": "batch", .init(stringLiteral: newField): 1]),
            ]
        ]
    }

    static let actions = ["get", "find", "create", "update", "delete", "add_fields"]

    @Test func batchAnswersEachRequestByItsPermission() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let note = try await api.create("Note", ["text": "seed"], headers: Headers.master)
            let doomed = try await api.create("Note", ["text": "doomed"], headers: Headers.master)
            _ = try await api.create("Memo", ["text": "seed"], headers: Headers.master)
            let onlyAda: JSONValue = ["users": [.string(world.ada)]]
            try await world.permit("Note", ["get", "find", "create", "update", "delete"], onlyAda)
            try await world.permit("Memo", ["add_fields"], onlyAda)

            let refused = try await api.post(
                "/1.1/batch", headers: world.session("bob"), Self.everyAction(note: note, doomed: doomed, newField: "bobs"))
            let entries = try #require(refused.json?.arrayValue, "\(refused)")
            #expect(entries == Self.actions.map { ["error": forbidden($0)] }, "\(refused)")
            let notes = try await api.find("Note", ["count": "1", "limit": "0"], headers: Headers.master)
            #expect(notes["count"] == 2, "nothing created or deleted: \(notes)")

            for (headers, field) in [(world.session("ada"), "adas"), (Headers.master, "masters")] {
                let target = try await api.create("Note", ["text": "doomed"], headers: Headers.master)
                let done = try await api.post("/1.1/batch", headers: headers, Self.everyAction(note: note, doomed: target, newField: field))
                let answers = try #require(done.json?.arrayValue, "\(done)")
                #expect(answers.count == 6 && answers.allSatisfy { $0["success"] != nil }, "\(done)")
                #expect(answers.first?["success"]?["text"] == "seed", "\(done)")
            }
        }
    }

    @Test func batchSaveChecksCreateUpdateAndNewFields() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let note = try await api.create("Note", ["text": "seed"], headers: Headers.master)
            _ = try await api.create("Memo", ["text": "seed"], headers: Headers.master)
            let staff: JSONValue = ["roles": ["staff"]]
            try await world.permit("Note", ["create", "update"], staff)
            try await world.permit("Memo", ["add_fields"], staff)
            // The shapes the iOS SDKs send: a new object by its class path, an update by its own.
            let create: JSONValue = [
                "method": "POST", "path": "/1.1/classes/Note", "new": true, "body": ["text": "saved", "__internalId": "n1"],
            ]
            let update: JSONValue = [
                "method": "PUT", "path": .string("/1.1/classes/Note/\(note)"), "body": ["text": "saved", "__internalId": .string(note)],
            ]
            let addField: JSONValue = [
                "method": "POST", "path": "/1.1/classes/Memo", "new": true, "body": ["text": "saved", "mood": 1, "__internalId": "m1"],
            ]
            let dan = world.session("dan")
            expectForbidden(try await BatchSaveTests.save(api, [create], headers: dan), "create")
            expectForbidden(try await BatchSaveTests.save(api, [update], headers: dan), "update")
            expectForbidden(try await BatchSaveTests.save(api, [addField], headers: dan), "add_fields")
            // A refused item fails the whole call before anything is written: the creation before
            // it, which dan may do, isn't kept either.
            let memo: JSONValue = [
                "method": "POST", "path": "/1.1/classes/Memo", "new": true, "body": ["text": "dans", "__internalId": "m0"],
            ]
            expectForbidden(try await BatchSaveTests.save(api, [memo, update], headers: dan), "update")
            #expect(try await api.count("Memo") == 1)
            #expect(try await api.count("Note") == 1)
            #expect(try await BatchSaveTests.save(api, [memo], headers: dan).status == .ok, "Memo stays open to him")
            #expect(try await api.fetch("Note", note, headers: Headers.master)["text"] == "seed")

            // carol holds `staff` through the child role `interns`.
            for headers in [world.session("carol"), Headers.master] {
                let saved = try await BatchSaveTests.save(api, [create, update, addField], headers: headers)
                #expect(saved.status == .ok && saved["n1"]?["objectId"] != nil && saved["m1"]?["objectId"] != nil, "\(saved)")
            }
            #expect(try await api.fetch("Note", note, headers: Headers.master)["text"] == "saved")
        }
    }

    @Test func cloudQueryAndSubqueriesNeedFind() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let note = try await api.create("Note", ["text": "seed"], headers: Headers.master)
            _ = try await api.create("Memo", ["note": pointer("Note", note), "text": "seed"], headers: Headers.master)
            try await world.permit("Note", ["find"], ["onlySignInUsers": true])
            func cql(_ statement: String, _ headers: HTTPFields) async throws -> Reply {
                try await api.get("/1.1/cloudQuery" + queryString(["cql": statement]), headers: headers)
            }
            expectForbidden(try await cql("select * from Note", Headers.client), "find")
            expectForbidden(try await cql("select count(*) from Note", Headers.client), "find")
            // A class whose find is closed can't be read through another class's subquery either.
            let inQuery = #"{"note":{"$inQuery":{"className":"Note","where":{"text":"seed"}}}}"#
            let select = #"{"text":{"$select":{"query":{"className":"Note","where":{}},"key":"text"}}}"#
            for condition in [inQuery, select] {
                expectForbidden(try await api.find("Memo", ["where": condition], headers: Headers.client), "find")
                let allowed = try await api.find("Memo", ["where": condition], headers: world.session("dan"))
                #expect(allowed.results.count == 1, "\(condition): \(allowed)")
            }
            for headers in [world.session("dan"), Headers.master] {
                let all = try await cql("select * from Note", headers)
                #expect(all.results.map { $0["objectId"] } == [.string(note)], "\(all)")
                #expect(try await cql("select count(*) from Note", headers)["count"] == 1)
            }
        }
    }

    /// `include` resolves a pointer only where `get` of its class lets the caller; elsewhere the
    /// pointer is answered as it is stored. `find` doesn't govern it.
    @Test func includeLeavesAPointerWhereGetIsClosed() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let note = try await api.create("Note", ["text": "inner"], headers: Headers.master)
            let memo = try await api.create("Memo", ["text": "inner"], headers: Headers.master)
            let link = try await api.create(
                "Link", ["note": pointer("Note", note), "memo": pointer("Memo", memo)], headers: Headers.master)
            try await world.permit("Note", ["get"], Self.nobody)
            try await world.permit("Memo", ["find"], Self.nobody)
            let user = world.session("ada")
            let found = try await api.find("Link", ["include": "note,memo"], headers: user)
            #expect(found.results.first?["note"] == pointer("Note", note), "\(found)")
            #expect(found.results.first?["memo"]?["text"] == "inner", "find closed, get open: \(found)")
            let fetched = try await api.fetch("Link", link, ["include": "note"], headers: user)
            #expect(fetched["note"] == pointer("Note", note), "\(fetched)")
            let cql = try await api.get(
                "/1.1/cloudQuery" + queryString(["cql": "select include note, * from Link"]), headers: user)
            #expect(cql.status == .ok && cql.results.first?["note"] == pointer("Note", note), "\(cql)")
            let master = try await api.find("Link", ["include": "note"], headers: Headers.master)
            #expect(master.results.first?["note"]?["text"] == "inner", "\(master)")
        }
    }
}
