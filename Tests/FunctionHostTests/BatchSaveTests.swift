import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `POST /1.1/batch/save` with the request shapes the iOS SDKs send (ios-sdk-wire.md §4): the
/// answer keyed by `__internalId`, `__children` made pointers, `new`, `fetchWhenSave`, `where`.
@Suite struct BatchSaveTests {
    /// Posts `requests` to `/1.1/batch/save`.
    static func save(_ api: API, _ requests: [JSONValue], headers: HTTPFields = Headers.client) async throws -> Reply {
        try await api.post("/1.1/batch/save", headers: headers, ["requests": .array(requests)])
    }

    /// Checks the entry of a new object: objectId plus canonical createdAt and updatedAt.
    static func expectCreated(_ entry: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(isObjectId(entry?["objectId"]?.stringValue), "\(String(describing: entry))", sourceLocation: sourceLocation)
        #expect(isCanonicalISODate(entry?["createdAt"]?.stringValue), sourceLocation: sourceLocation)
        #expect(isCanonicalISODate(entry?["updatedAt"]?.stringValue), sourceLocation: sourceLocation)
    }

    /// The stored object as the master key sees it, which would show `__internalId` if it were kept.
    static func stored(_ api: API, _ className: String, _ id: String?) async throws -> JSONValue {
        try await api.fetch(className, try #require(id), headers: Headers.master)
    }

    // §4.2, worked example: Objective-C posts the child, posts the parent, then PUTs the parent
    // (class path, `new: true`) with `__children`.
    @Test func objectiveCShapeCreatesChildThenParentAndLinksThem() async throws {
        try await TestServer.run { api in
            let body = try json(
                """
                {"requests":[
                 {"method":"POST","path":"/1.1/classes/Person","new":true,
                  "body":{"name":"Ann","__internalId":"c7f3a1"}},
                 {"method":"POST","path":"/1.1/classes/Post","new":true,
                  "body":{"title":"Hi","__internalId":"9b21e0"}},
                 {"method":"PUT","path":"/1.1/classes/Post","new":true,
                  "body":{"__children":[{"className":"Person","cid":"c7f3a1","key":"author"}],"__internalId":"9b21e0"}}
                ]}
                """)
            let reply = try await api.post("/1.1/batch/save", body)
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(fieldNames(reply.json) == ["c7f3a1", "9b21e0"], "\(reply)")
            Self.expectCreated(reply["c7f3a1"])
            Self.expectCreated(reply["9b21e0"])
            let person = try #require(reply["c7f3a1"]?["objectId"]?.stringValue)
            let post = try #require(reply["9b21e0"]?["objectId"]?.stringValue)
            #expect(reply["9b21e0"]?["author"] == pointer("Person", person), "\(reply)")
            #expect(reply["9b21e0"]?["createdAt"] != nil, "the PUT's answer is merged into the POST's")

            // One Post (the PUT updated the object the POST made), linked, without the batch keys.
            #expect(try await api.count("Post") == 1)
            let stored = try await Self.stored(api, "Post", post)
            #expect(stored["title"] == "Hi" && stored["author"] == pointer("Person", person), "\(stored)")
            #expect(fieldNames(stored).isDisjoint(with: ["__internalId", "__children", "new"]), "\(stored)")
            #expect(fieldNames(try await Self.stored(api, "Person", person)).contains("__internalId") == false)
            // The pointer is a real one: include resolves it.
            let found = try await api.results("Post", ["include": "author"])
            #expect(found.first?["author"]?["name"] == "Ann", "\(found)")
        }
    }

    // §4.3, worked example: Swift puts `__children` in the parent's POST.
    @Test func swiftShapeResolvesChildrenInAPost() async throws {
        try await TestServer.run { api in
            let body = try json(
                """
                {"requests":[
                 {"method":"POST","path":"/1.1/classes/Person","new":true,"body":{"name":"Ann","__internalId":"c7f3a1"}},
                 {"method":"POST","path":"/1.1/classes/Post","new":true,
                  "body":{"title":"Hi","__internalId":"9b21e0","__children":[{"className":"Person","cid":"c7f3a1","key":"author"}]}}
                ]}
                """)
            let reply = try await api.post("/1.1/batch/save", body)
            #expect(reply.status == .ok, "\(reply)")
            #expect(fieldNames(reply.json) == ["c7f3a1", "9b21e0"])
            Self.expectCreated(reply["c7f3a1"])
            Self.expectCreated(reply["9b21e0"])
            let person = try #require(reply["c7f3a1"]?["objectId"]?.stringValue)
            #expect(reply["9b21e0"]?["author"] == pointer("Person", person), "\(reply)")
            let stored = try await Self.stored(api, "Post", reply["9b21e0"]?["objectId"]?.stringValue)
            #expect(stored["author"] == pointer("Person", person) && stored["title"] == "Hi", "\(stored)")
            #expect(fieldNames(stored).isDisjoint(with: ["__internalId", "__children"]), "\(stored)")
        }
    }

    @Test func updateWithFetchWhenSaveAnswersTheNewValues() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Score", ["score": 1, "title": "a"])
            // Objective-C: the option on the PUT of an existing object, keyed by its objectId.
            let reply = try await Self.save(
                api,
                [
                    [
                        "method": "PUT", "path": .string("/1.1/classes/Score/\(id)"),
                        "body": ["score": op("Increment", ["amount": 5]), "__internalId": .string(id)],
                        "params": ["fetchWhenSave": true],
                    ]
                ])
            #expect(reply.status == .ok, "\(reply)")
            let entry = try #require(reply[id], "\(reply)")
            #expect(entry["score"] == 6 && entry["objectId"] == .string(id), "\(entry)")
            #expect(isCanonicalISODate(entry["updatedAt"]?.stringValue))
            // As the single-object PUT with fetchWhenSave answers: the fields it changed.
            let single = try await api.put("/1.1/classes/Score/\(id)?fetchWhenSave=true", ["score": op("Increment")])
            #expect(fieldNames(entry) == fieldNames(single.json), "\(entry) vs \(single)")
            // Without the option an update answers objectId and updatedAt only.
            let plain = try await Self.save(
                api, [["method": "PUT", "path": .string("/1.1/classes/Score/\(id)"), "body": ["title": "b", "__internalId": .string(id)]]])
            #expect(fieldNames(plain[id]) == ["objectId", "updatedAt"], "\(plain)")
            // A create with fetchWhenSave answers every field.
            let created = try await Self.save(
                api,
                [["method": "POST", "path": "/1.1/classes/Score", "new": true, "body": ["score": 3, "__internalId": "n1"], "params": ["fetchWhenSave": true]]])
            #expect(created["n1"]?["score"] == 3 && created["n1"]?["ACL"] != nil, "\(created)")
            Self.expectCreated(created["n1"])
        }
    }

    @Test func whereMatchSavesAndMismatchFailsWith305WritingNothing() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Account", ["balance": 10])
            let matched = try await Self.save(
                api,
                [
                    [
                        "method": "PUT", "path": .string("/1.1/classes/Account/\(id)"),
                        "body": ["balance": op("Increment", ["amount": -5]), "__internalId": .string(id)],
                        "params": ["where": ["balance": ["$gte": 5]]],
                    ]
                ])
            #expect(matched.status == .ok && matched[id]?["updatedAt"] != nil, "\(matched)")
            #expect(try await api.fetch("Account", id)["balance"] == 5)

            // Swift attaches the params to every item: the new child's POST ignores `where`, the
            // parent's PUT doesn't match, so the call fails and the child isn't written either.
            let params: JSONValue = ["where": ["balance": ["$gte": 50]]]
            let refused = try await Self.save(
                api,
                [
                    ["method": "POST", "path": "/1.1/classes/Receipt", "new": true, "body": ["n": 1, "__internalId": "r1"], "params": params],
                    [
                        "method": "PUT", "path": .string("/1.1/classes/Account/\(id)"),
                        "body": [
                            "balance": op("Increment", ["amount": -50]), "__internalId": .string(id),
                            "__children": [["className": "Receipt", "cid": "r1", "key": "last"]],
                        ],
                        "params": params,
                    ],
                ])
            expectError(refused, code: 305)
            #expect(refused.json == ["code": 305, "error": "No effect on updating/deleting a document."], "\(refused)")
            #expect(try await api.count("Receipt") == nil, "nothing of the call was written")
            let account = try await api.fetch("Account", id)
            #expect(account["balance"] == 5 && account["last"] == nil, "\(account)")
        }
    }

    @Test func whereIsIgnoredOnCreates() async throws {
        try await TestServer.run { api in
            let reply = try await Self.save(
                api,
                [
                    [
                        "method": "POST", "path": "/1.1/classes/Todo", "new": true,
                        "body": ["title": "new", "__internalId": "t1"], "params": ["where": ["title": "never matches"]],
                    ]
                ])
            #expect(reply.status == .ok, "\(reply)")
            Self.expectCreated(reply["t1"])
            #expect(try await api.count("Todo") == 1)
        }
    }

    // `+saveAll:`: unrelated objects of several classes, under each version prefix a path may use.
    @Test(arguments: ["1.1", "1"])
    func saveAllOfUnrelatedObjects(prefix: String) async throws {
        try await TestServer.run { api in
            let existing = try await api.create("Todo", ["title": "old", "n": 1])
            let reply = try await api.post(
                "/\(prefix)/batch/save",
                [
                    "requests": [
                        ["method": "POST", "path": "/1.1/classes/Todo", "new": true, "body": ["title": "a", "__internalId": "a"]],
                        ["method": "POST", "path": "/1/classes/Todo", "new": true, "body": ["title": "b", "__internalId": "b"]],
                        ["method": "POST", "path": "classes/Tag", "new": true, "body": ["name": "c", "__internalId": "c"]],
                        [
                            "method": "PUT", "path": .string("/1.1/classes/Todo/\(existing)"),
                            "body": ["n": op("Increment"), "__internalId": .string(existing)],
                        ],
                    ]
                ])
            #expect(reply.status == .ok, "\(reply)")
            #expect(fieldNames(reply.json) == ["a", "b", "c", existing], "\(reply)")
            for key in ["a", "b", "c"] { Self.expectCreated(reply[key]) }
            #expect(fieldNames(reply[existing]) == ["objectId", "updatedAt"], "\(reply)")
            let titles = try await api.results("Todo", ["order": "createdAt"]).compactMap { $0["title"]?.stringValue }
            #expect(titles == ["old", "a", "b"])
            #expect(try await api.fetch("Todo", existing)["n"] == 2)
            #expect(try await api.count("Tag") == 1)
            // An empty call saves nothing and says so with an empty object.
            let empty = try await api.post("/\(prefix)/batch/save", ["requests": []])
            #expect(empty.status == .ok && empty.json == [:], "\(empty)")
        }
    }

    // Objective-C's PUT on a class path without `new` names an existing object by its objectId.
    @Test func aPutWithoutIdUpdatesTheObjectItsInternalIdNames() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "old"])
            let reply = try await Self.save(
                api, [["method": "PUT", "path": "/1.1/classes/Todo", "body": ["title": "new", "__internalId": .string(id)]]])
            #expect(reply.status == .ok && reply[id]?["objectId"] == .string(id), "\(reply)")
            #expect(try await api.fetch("Todo", id)["title"] == "new")
            #expect(try await api.count("Todo") == 1)
        }
    }
}
