import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import NIOCore
import TestSupport
import Testing

@testable import FunctionHost

/// The `__op` operations, applied by updates (and creations), and their atomicity.
@Suite struct OperationTests {
    /// Applies an update and returns the object as fetched afterwards.
    static func apply(
        _ api: API, _ id: String, _ changes: JSONValue, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await api.put("/1.1/classes/Counter/\(id)", changes)
        #expect(reply.status == .ok, "\(reply)", sourceLocation: sourceLocation)
        return try await api.fetch("Counter", id, sourceLocation: sourceLocation)
    }

    @Test func incrementAndDecrement() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["n": 10, "d": 1.5])
            #expect(try await Self.apply(api, id, ["n": op("Increment", ["amount": 5])])["n"] == 15)
            #expect(try await Self.apply(api, id, ["n": op("Increment")])["n"] == 16)
            #expect(try await Self.apply(api, id, ["n": op("Decrement", ["amount": 20])])["n"] == -4)
            #expect(try await Self.apply(api, id, ["n": op("Decrement")])["n"] == -5)
            #expect(try await Self.apply(api, id, ["n": op("Increment", ["amount": -5])])["n"] == -10)
            #expect(try await Self.apply(api, id, ["d": op("Increment", ["amount": 1])])["d"] == .double(2.5))
            #expect(try await Self.apply(api, id, ["n": op("Increment", ["amount": 0.25])])["n"] == .double(-9.75))
            #expect(try await Self.apply(api, id, ["d": op("Decrement", ["amount": 0.5])])["d"] == 2)
            // A missing field starts from zero.
            #expect(try await Self.apply(api, id, ["fresh": op("Increment", ["amount": 3])])["fresh"] == 3)
            #expect(try await Self.apply(api, id, ["fresher": op("Decrement", ["amount": 3])])["fresher"] == -3)
        }
    }

    @Test func operationsOnCreateStartFromNothing() async throws {
        try await TestServer.run { api in
            let id = try await api.create(
                "Counter",
                [
                    "n": op("Increment", ["amount": 2]), "list": op("Add", ["objects": [1, 1]]),
                    "set": op("AddUnique", ["objects": [1, 1, 2]]), "gone": op("Delete"),
                    "bits": op("BitOr", ["value": 6]),
                ])
            let object = try await api.fetch("Counter", id)
            #expect(object["n"] == 2)
            #expect(object["list"] == [1, 1])
            #expect(object["set"] == [1, 2])
            #expect(object["bits"] == 6)
            #expect(object.objectValue?.keys.contains("gone") == false)
        }
    }

    @Test func addAddUniqueAndRemove() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["tags": ["a", "b"], "objs": [["k": 1]]])
            #expect(try await Self.apply(api, id, ["tags": op("Add", ["objects": ["b", "c"]])])["tags"] == ["a", "b", "b", "c"])
            #expect(
                try await Self.apply(api, id, ["tags": op("AddUnique", ["objects": ["a", "d", "d", "e"]])])["tags"]
                    == ["a", "b", "b", "c", "d", "e"])
            #expect(try await Self.apply(api, id, ["tags": op("Remove", ["objects": ["b", "e", "zz"]])])["tags"] == ["a", "c", "d"])
            // Objects compare by value.
            #expect(
                try await Self.apply(api, id, ["objs": op("AddUnique", ["objects": [["k": 1], ["k": 2]]])])["objs"]
                    == [["k": 1], ["k": 2]])
            #expect(try await Self.apply(api, id, ["objs": op("Remove", ["objects": [["k": 1]]])])["objs"] == [["k": 2]])
            // Typed elements are normalized before they are compared.
            let withDate = try await Self.apply(
                api, id, ["dates": op("AddUnique", ["objects": [date("2024-01-01T00:00:00Z"), date("2024-01-01T00:00:00.000Z")]])])
            #expect(withDate["dates"] == [date("2024-01-01T00:00:00.000Z")])
            // Removing from a missing field leaves an empty array.
            #expect(try await Self.apply(api, id, ["none": op("Remove", ["objects": [1]])])["none"] == [])
        }
    }

    @Test func deleteRemovesTheField() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["title": "x", "n": 1])
            let object = try await Self.apply(api, id, ["title": op("Delete")])
            #expect(object.objectValue?.keys.contains("title") == false)
            #expect(object["n"] == 1)
            #expect(try await api.matching("Counter", #"{"title":{"$exists":false}}"#).count == 1)
            // The field's type stays recorded: it can be set again with the same type only.
            #expect(try await Self.apply(api, id, ["title": "back"])["title"] == "back")
        }
    }

    @Test func addRelationAndRemoveRelation() async throws {
        try await TestServer.run { api in
            let tag1 = try await api.create("Tag", ["name": "one"])
            let tag2 = try await api.create("Tag", ["name": "two"])
            let id = try await api.create("Post", ["title": "p"])
            let added = try await api.put(
                "/1.1/classes/Post/\(id)?fetchWhenSave=true",
                ["tags": op("AddRelation", ["objects": [pointer("Tag", tag1), pointer("Tag", tag2)]])])
            #expect(added.status == .ok, "\(added)")
            let relation: JSONValue = ["__type": "Relation", "className": "Tag"]
            #expect(added["tags"] == relation)
            #expect(try await api.fetch("Post", id)["tags"] == relation)

            let removed = try await api.put(
                "/1.1/classes/Post/\(id)", ["tags": op("RemoveRelation", ["objects": [pointer("Tag", tag1)]])])
            #expect(removed.status == .ok, "\(removed)")
            #expect(try await api.fetch("Post", id)["tags"] == relation)
        }
    }

    @Test func invalidRelationOperationsAre128Or111() async throws {
        try await TestServer.run { api in
            let tag = try await api.create("Tag", ["name": "one"])
            _ = try await api.create("Tag", ["name": "two"])
            let other = try await api.create("Other", ["name": "o"])
            _ = try await api.create("Other", ["name": "p"])
            let id = try await api.create("Post", ["title": "p"])
            expectError(
                try await api.put(
                    "/1.1/classes/Post/\(id)",
                    ["tags": op("AddRelation", ["objects": [pointer("Tag", tag), pointer("Other", other)]])]),
                code: 128)
            expectError(try await api.put("/1.1/classes/Post/\(id)", ["tags": op("AddRelation", ["objects": []])]), code: 128)
            expectError(try await api.put("/1.1/classes/Post/\(id)", ["tags": op("AddRelation", ["objects": [1]])]), code: 128)
            #expect(try await api.fetch("Post", id)["tags"] == nil)

            _ = try await api.put("/1.1/classes/Post/\(id)", ["tags": op("AddRelation", ["objects": [pointer("Tag", tag)]])])
            // A relation holds one class.
            expectError(
                try await api.put("/1.1/classes/Post/\(id)", ["tags": op("AddRelation", ["objects": [pointer("Other", other)]])]),
                code: 111)
            // And a plain field is not a relation.
            expectError(
                try await api.put("/1.1/classes/Post/\(id)", ["title": op("AddRelation", ["objects": [pointer("Tag", tag)]])]),
                code: 111)
            let post = try await api.fetch("Post", id)
            #expect(post["tags"] == ["__type": "Relation", "className": "Tag"])
            #expect(post["title"] == "p")
        }
    }

    @Test func bitOperations() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["flags": 12])
            #expect(try await Self.apply(api, id, ["flags": op("BitAnd", ["value": 10])])["flags"] == 8)
            #expect(try await Self.apply(api, id, ["flags": op("BitOr", ["value": 3])])["flags"] == 11)
            #expect(try await Self.apply(api, id, ["flags": op("BitXor", ["value": 5])])["flags"] == 14)
            #expect(try await Self.apply(api, id, ["flags": op("BitXor", ["value": -1])])["flags"] == -15)
            #expect(try await Self.apply(api, id, ["other": op("BitOr", ["value": 5])])["other"] == 5)
        }
    }

    @Test func severalOperationsInOneUpdateApplyTogether() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["n": 1, "tags": ["a"], "title": "t", "flags": 1])
            let object = try await Self.apply(
                api, id,
                [
                    "n": op("Increment", ["amount": 9]), "tags": op("AddUnique", ["objects": ["b"]]),
                    "title": op("Delete"), "flags": op("BitOr", ["value": 2]), "plain": "set",
                ])
            #expect(object["n"] == 10)
            #expect(object["tags"] == ["a", "b"])
            #expect(object["title"] == nil)
            #expect(object["flags"] == 3)
            #expect(object["plain"] == "set")
        }
    }

    @Test(arguments: [
        #"{"title":{"__op":"Increment","amount":1}}"#,
        #"{"n":{"__op":"Increment","amount":"1"}}"#,
        #"{"n":{"__op":"Add","objects":[1]}}"#,
        #"{"tags":{"__op":"Add","objects":"a"}}"#,
        #"{"tags":{"__op":"Remove"}}"#,
        #"{"n":{"__op":"BitAnd","value":1.5}}"#,
        #"{"d":{"__op":"BitOr","value":1}}"#,
        #"{"title":{"__op":"BitXor","value":1}}"#,
        #"{"n":{"__op":"Multiply","amount":2}}"#,
        #"{"n":{"__op":5}}"#,
        #"{"meta":{"inner":{"__op":"Increment"}}}"#,
        #"{"n":{"__op":"Increment","amount":1},"title":{"__op":"Increment"}}"#,
    ])
    func invalidOperationsAre111AndChangeNothing(body: String) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["n": 1, "d": 1.5, "title": "t", "tags": ["a"]])
            let before = try await api.fetch("Counter", id)
            expectError(try await api.send(.put, "/1.1/classes/Counter/\(id)", body: body), code: 111, status: .badRequest)
            #expect(try await api.fetch("Counter", id) == before)
        }
    }

    @Test func integerExtremes() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["n": 0, "big": .int(Int64.max)])
            #expect(try await Self.apply(api, id, ["n": op("Decrement", ["amount": .int(Int64.max)])])["n"] == .int(-Int64.max))
            #expect(try await Self.apply(api, id, ["n": op("Increment", ["amount": .int(Int64.min)])])["n"]
                    == .double(Double(-Int64.max) + Double(Int64.min)))
            // An integer overflow turns into a double rather than wrapping around.
            let overflowed = try await Self.apply(api, id, ["big": op("Increment")])["big"]
            #expect(overflowed?.doubleValue == Double(Int64.max) + 1)
        }
    }

    @Test func decrementByTheSmallestIntegerDoesNotCrash() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["n": 0])
            // Negating Int64.min overflows; the server must not trap on it.
            let reply = try await api.send(
                .put, "/1.1/classes/Counter/\(id)?fetchWhenSave=true",
                body: #"{"n":{"__op":"Decrement","amount":-9223372036854775808}}"#)
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply["n"] == .double(-Double(Int64.min)))
            #expect(try await api.get("/__engine/1/ping").status == .ok)
            #expect(try await api.fetch("Counter", id)["n"] == .double(-Double(Int64.min)))
        }
    }

    @Test func nonFiniteResultsAreRefused() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["n": 1, "d": 1.7e308])
            let infinite = try await api.send(.put, "/1.1/classes/Counter/\(id)", body: #"{"n":{"__op":"Increment","amount":1e400}}"#)
            let overflow = try await api.put("/1.1/classes/Counter/\(id)", ["d": op("Increment", ["amount": 1.7e308])])
            let object = try await api.fetch("Counter", id)
            #expect((400..<500).contains(infinite.status.code), "\(infinite)")
            #expect((400..<500).contains(overflow.status.code), "\(overflow)")
            #expect(object["n"] == 1)
            #expect(object["d"] == .double(1.7e308))
        }
    }

    @Test func concurrentIncrementsOverHTTPAreAtomic() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["n": 0])
            // All in flight together: the router serves them concurrently, as it would a hundred
            // connections.
            let values = try await withThrowingTaskGroup(of: JSONValue?.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        let reply = try await api.put(
                            "/1.1/classes/Counter/\(id)?fetchWhenSave=true", ["n": ["__op": "Increment", "amount": 1]])
                        return reply.status == .ok ? reply["n"] : nil
                    }
                }
                var values: [JSONValue?] = []
                for try await value in group { values.append(value) }
                return values
            }
            #expect(values.count == 100)
            #expect(!values.contains(nil), "some increments failed")
            // Every request saw a distinct intermediate value: none was lost or applied twice.
            #expect(Set(values.compactMap { $0?.intValue }) == Set(1...100))
            #expect(try await api.fetch("Counter", id)["n"] == 100)
        }
    }

    @Test func concurrentAddUniqueKeepsEveryElement() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Counter", ["set": []])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let reply = try await api.put(
                            "/1.1/classes/Counter/\(id)", ["set": ["__op": "AddUnique", "objects": [.int(Int64(index % 20))]]])
                        #expect(reply.status == .ok, "\(reply)")
                    }
                }
                try await group.waitForAll()
            }
            let set = try #require(try await api.fetch("Counter", id)["set"]?.arrayValue)
            #expect(set.count == 20)
            #expect(Set(set.compactMap(\.intValue)) == Set(0..<20))
        }
    }
}
