import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import FunctionHost

/// A request body that must be refused with a code.
struct RejectedBody: Sendable, CustomTestStringConvertible {
    let name: String
    let body: String
    let code: Int64

    init(_ name: String, _ code: Int64, _ body: String) {
        self.name = name
        self.body = body
        self.code = code
    }

    var testDescription: String { "\(name) → \(code)" }
}

/// Refused writes: the right code in a 4xx `{"code","error"}` answer, and nothing written.
@Suite struct ValidationTests {
    /// Bodies refused both on creation and on update, against a class that already holds
    /// `{"n": 1, "title": "t", "when": Date, "tags": [..]}`.
    static let rejected: [RejectedBody] = [
        RejectedBody("objectId", 105, #"{"objectId":"abc","title":"x"}"#),
        RejectedBody("createdAt", 105, #"{"createdAt":"2020-01-01T00:00:00.000Z"}"#),
        RejectedBody("updatedAt", 105, #"{"updatedAt":"2020-01-01T00:00:00.000Z"}"#),
        RejectedBody("leading __", 105, #"{"__x":1}"#),
        RejectedBody("dash in a key", 105, #"{"a-b":1}"#),
        RejectedBody("dot in a key", 105, #"{"a.b":1}"#),
        RejectedBody("empty key", 105, #"{"":1}"#),
        RejectedBody("truncated JSON", 107, #"{"title":"#),
        RejectedBody("not an object", 107, #"[1,2,3]"#),
        RejectedBody("a bare string", 107, #""title""#),
        RejectedBody("trailing garbage", 107, #"{"title":"x"} x"#),
        RejectedBody("single quotes", 107, #"{'title':'x'}"#),
        RejectedBody("NaN", 107, #"{"n":NaN}"#),
        RejectedBody("Number field gets a String", 111, #"{"n":"one"}"#),
        RejectedBody("String field gets a Number", 111, #"{"title":5}"#),
        RejectedBody("Date field gets a String", 111, #"{"when":"2020-01-01T00:00:00.000Z"}"#),
        RejectedBody("Array field gets an Object", 111, #"{"tags":{"a":1}}"#),
        RejectedBody("valid field then a type change", 111, #"{"fresh":"ok","n":"one"}"#),
        RejectedBody("unknown __op", 111, #"{"n":{"__op":"Explode"}}"#),
        RejectedBody("unknown __type", 111, #"{"x":{"__type":"Banana","value":1}}"#),
        RejectedBody("nested unknown __type", 111, #"{"x":[{"__type":"Banana"}]}"#),
        RejectedBody("latitude above 90", 302, #"{"geo":{"__type":"GeoPoint","latitude":91,"longitude":0}}"#),
        RejectedBody("longitude below -180", 302, #"{"geo":{"__type":"GeoPoint","latitude":0,"longitude":-180.5}}"#),
        RejectedBody("GeoPoint without longitude", 302, #"{"geo":{"__type":"GeoPoint","latitude":0}}"#),
        RejectedBody("Pointer to a class that doesn't exist", 106, #"{"p":{"__type":"Pointer","className":"Nowhere","objectId":"abc"}}"#),
        RejectedBody("Pointer without objectId", 106, #"{"p":{"__type":"Pointer","className":"Item"}}"#),
        RejectedBody("Pointer to an invalid class name", 106, #"{"p":{"__type":"Pointer","className":"a-b","objectId":"abc"}}"#),
        RejectedBody("nested key with $", 121, #"{"meta":{"$where":"1"}}"#),
        RejectedBody("deeply nested key with $", 121, #"{"meta":{"a":[{"b":{"c$":1}}]}}"#),
        RejectedBody("nested key with a dot", 121, #"{"meta":{"a.b":1}}"#),
        RejectedBody("nested key with leading __", 121, #"{"meta":{"__proto__":1}}"#),
        RejectedBody("ACL not an object", 123, #"{"ACL":"public"}"#),
        RejectedBody("ACL entry not an object", 123, #"{"ACL":{"*":true}}"#),
        RejectedBody("ACL permission not a boolean", 123, #"{"ACL":{"*":{"read":"yes"}}}"#),
        RejectedBody("ACL unknown permission", 123, #"{"ACL":{"*":{"admin":true}}}"#),
        RejectedBody("ACL empty entry key", 123, #"{"ACL":{"":{"read":true}}}"#),
        RejectedBody("object over 128 KB", 116, #"{"big":"\#(String(repeating: "x", count: 131_100))"}"#),
    ]

    /// Seeds the class `Item` with one object of each recorded type and returns its id.
    static func seed(_ api: API) async throws -> String {
        let id = try await api.create(
            "Item", ["n": 1, "title": "t", "when": date("2024-01-01T00:00:00Z"), "tags": ["a"]])
        // A second write makes the class's catalog entry current, so the Pointer cases exercise
        // the pointer check itself (see ObjectTests.aPointerToAClassCreatedByItsFirstWriteIsAccepted).
        _ = try await api.fetch("Item", id)
        return id
    }

    @Test(arguments: rejected)
    func refusedCreationWritesNothing(_ rejected: RejectedBody) async throws {
        try await TestServer.run { api in
            let id = try await Self.seed(api)
            let before = try await api.fetch("Item", id)
            let reply = try await api.send(.post, "/1.1/classes/Item", body: rejected.body)
            expectError(reply, code: rejected.code, status: .badRequest)
            #expect(try await api.count("Item") == 1)
            #expect(try await api.fetch("Item", id) == before)
            // The schema didn't learn anything from the refused write either.
            let fresh = try await api.post("/1.1/classes/Item", ["fresh": 1])
            #expect(fresh.status == .created, "\(fresh)")
        }
    }

    @Test(arguments: rejected)
    func refusedUpdateChangesNothing(_ rejected: RejectedBody) async throws {
        try await TestServer.run { api in
            let id = try await Self.seed(api)
            let before = try await api.fetch("Item", id)
            let reply = try await api.send(.put, "/1.1/classes/Item/\(id)", body: rejected.body)
            expectError(reply, code: rejected.code, status: .badRequest)
            #expect(try await api.fetch("Item", id) == before)
        }
    }

    @Test(arguments: ["1abc", "a-b", "_Private", "a.b", "Tab%09le", String(repeating: "a", count: 129)])
    func invalidClassNamesAre103(className: String) async throws {
        try await TestServer.run { api in
            expectError(try await api.post("/1.1/classes/\(className)", ["title": "x"]), code: 103, status: .badRequest)
            expectError(try await api.get("/1.1/classes/\(className)"), code: 103, status: .badRequest)
            expectError(try await api.get("/1.1/classes/\(className)/abc"), code: 103, status: .badRequest)
            expectError(try await api.put("/1.1/classes/\(className)/abc", ["title": "x"]), code: 103, status: .badRequest)
            expectError(try await api.delete("/1.1/classes/\(className)/abc"), code: 103, status: .badRequest)
        }
    }

    @Test func aClassNameOf128CharactersIsValid() async throws {
        try await TestServer.run { api in
            let name = "C" + String(repeating: "a", count: 127)
            _ = try await api.create(name, ["title": "x"])
            #expect(try await api.count(name) == 1)
        }
    }

    @Test func aFailedFirstWriteDoesNotCreateTheClass() async throws {
        try await TestServer.run { api in
            for body in [#"{"objectId":"x"}"#, #"{"big":"\#(String(repeating: "x", count: 131_100))"}"#, #"{"a":"#] {
                let reply = try await api.send(.post, "/1.1/classes/Fresh", body: body)
                #expect((400..<500).contains(reply.status.code), "\(reply)")
                #expect(try await api.count("Fresh") == nil, "after \(body)")
            }
        }
    }

    @Test func typesAreLockedByTheFirstWrite() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Score", ["points": 10])
            expectError(try await api.post("/1.1/classes/Score", ["points": "ten"]), code: 111, status: .badRequest)
            expectError(try await api.put("/1.1/classes/Score/\(id)", ["points": true]), code: 111, status: .badRequest)
            expectError(try await api.put("/1.1/classes/Score/\(id)", ["points": ["a"]]), code: 111, status: .badRequest)
            // null fits every type; numbers of either kind fit Number.
            #expect(try await api.put("/1.1/classes/Score/\(id)", ["points": nil]).status == .ok)
            #expect(try await api.put("/1.1/classes/Score/\(id)", ["points": 2.5]).status == .ok)
            #expect(try await api.post("/1.1/classes/Score", ["points": 3]).status == .created)
            // A field first written as null gets its type from the first non-null value.
            _ = try await api.create("Score", ["later": nil])
            _ = try await api.create("Score", ["later": "text"])
            expectError(try await api.post("/1.1/classes/Score", ["later": 1]), code: 111, status: .badRequest)
            // Types are per class.
            _ = try await api.create("Other", ["points": "ten"])
            #expect(try await api.count("Score") == 4)
        }
    }

    @Test func theSizeLimitIs128KB() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Blob", ["data": .string(String(repeating: "y", count: 120_000))])
            #expect(try await api.fetch("Blob", id)["data"]?.stringValue?.count == 120_000)
            // Growing it past the limit is refused, and the stored object stays whole.
            let reply = try await api.put(
                "/1.1/classes/Blob/\(id)", ["more": .string(String(repeating: "z", count: 12_000))])
            expectError(reply, code: 116, status: .badRequest)
            let object = try await api.fetch("Blob", id)
            #expect(object["more"] == nil)
            #expect(object["data"]?.stringValue?.count == 120_000)
            // Also through an operation.
            let grown = try await api.put(
                "/1.1/classes/Blob/\(id)",
                ["list": op("Add", ["objects": .array(Array(repeating: "0123456789", count: 1_500))])])
            expectError(grown, code: 116, status: .badRequest)
        }
    }

    // Roles from clients have their own rules (RoleClientTests).
    @Test(arguments: ["_Installation"])
    func systemClassesNeedTheMasterKey(className: String) async throws {
        try await TestServer.run { api in
            let denied = try await api.post("/1.1/classes/\(className)", ["name": "x"])
            expectError(denied, code: 119, status: .forbidden)
            // Nor list them: device tokens are nobody else's (find closed by default).
            expectError(try await api.get("/1.1/classes/\(className)"), code: 403, status: .forbidden)
            #expect(try await api.get("/1.1/classes/\(className)?count=1&limit=0", headers: Headers.master)["count"] == 0)

            let id = try await api.create(className, ["name": "x"], headers: Headers.master)
            expectError(try await api.put("/1.1/classes/\(className)/\(id)", ["name": "y"]), code: 119, status: .forbidden)
            expectError(try await api.delete("/1.1/classes/\(className)/\(id)"), code: 119, status: .forbidden)
            #expect(try await api.fetch(className, id)["name"] == "x")

            let put = try await api.put("/1.1/classes/\(className)/\(id)", headers: Headers.master, ["name": "y"])
            #expect(put.status == .ok)
            #expect(try await api.delete("/1.1/classes/\(className)/\(id)", headers: Headers.master).status == .ok)
            #expect(try await api.get("/1.1/classes/\(className)?count=1&limit=0", headers: Headers.master)["count"] == 0)
        }
    }

    @Test func invalidUTF8IsMalformedJSON() async throws {
        try await TestServer.run { api in
            let reply = try await api.client.execute(
                uri: "/1.1/classes/Item", method: .post, headers: Headers.client,
                body: ByteBuffer(bytes: Array(#"{"title":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8))
            ) { Reply($0) }
            expectError(reply, code: 107, status: .badRequest)
            #expect(try await api.count("Item") == nil)
        }
    }
}
