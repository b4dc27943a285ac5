import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 30, findings 3 and 4: a request that nests or includes past any use. Each is refused
/// with a 4xx before the work (or the stack, or the memory) is spent, and the host keeps serving.
@Suite struct AnswerBoundsAttackTests {
    /// A `Node` whose `n` points to itself.
    static func selfPointing(_ api: API) async throws -> String {
        let id = try await api.create("Node", ["name": "loop"])
        let linked = try await api.put("/1.1/classes/Node/\(id)", ["n": ["__type": "Pointer", "className": "Node", "objectId": .string(id)]])
        #expect(linked.status == .ok, "\(linked)")
        return id
    }

    static func path(_ segment: String, _ levels: Int) -> String {
        Array(repeating: segment, count: levels).joined(separator: ".")
    }

    static func expectAlive(_ api: API, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await api.get("/__engine/1/ping").status == .ok, sourceLocation: sourceLocation)
    }

    @Test func aSeventyThousandLevelIncludeIsRefusedAndTheHostLives() async throws {
        try await TestServer.run { api in
            let id = try await Self.selfPointing(api)
            let deep = Self.path("n", 70_000)
            expectError(try await api.get("/1.1/classes/Node/\(id)?include=\(deep)"), code: 102, status: .badRequest)
            expectError(try await api.find("Node", ["include": deep]), code: 102, status: .badRequest)
            // The same by a POST that asks for a GET, and inside a batch.
            let posted = try await api.post("/1.1/classes/Node", ["_method": "GET", "include": .string(deep)])
            expectError(posted, code: 102, status: .badRequest)
            let batch = try await api.post(
                "/1.1/batch", ["requests": [["method": "GET", "path": .string("/1.1/classes/Node/\(id)?include=\(deep)")]]])
            #expect(batch.json?.arrayValue?.first?["error"]?["code"] == 102, "\(batch.status)")
            // Ten levels (the default) are answered; eleven, or more than 50 paths, are not.
            let ten = try await api.fetch("Node", id, ["include": Self.path("n", 10)])
            var level = ten
            for _ in 0..<10 { level = try #require(level["n"]); #expect(level["__type"] == "Object") }
            #expect(level["n"]?["__type"] == "Pointer")
            expectError(try await api.find("Node", ["include": Self.path("n", 11)]), code: 102, status: .badRequest)
            let many = (0..<51).map { "f\($0)" }.joined(separator: ",")
            expectError(try await api.find("Node", ["include": many]), code: 102, status: .badRequest)
            try await Self.expectAlive(api)
        }
    }

    @Test func deepBodiesPredicatesAndPathsAreRefusedAtTheParser() async throws {
        try await TestServer.run { api in
            _ = try await Self.selfPointing(api)
            let body = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            expectError(try await api.send(.post, "/1.1/classes/Node", body: "{\"x\":" + body + "}"), code: 107, status: .badRequest)
            expectError(try await api.send(.post, "/1.1/batch", body: body), code: 107, status: .badRequest)
            // One level past the limit is refused; at the limit (the body's own object counted) it is stored.
            let past = "{\"x\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
            expectError(try await api.send(.post, "/1.1/classes/Node", body: past), code: 107, status: .badRequest)
            for levels in [101, 100_000] {
                let or = String(repeating: "{\"$or\":[", count: levels) + "{}" + String(repeating: "]}", count: levels)
                let reply = try await api.find("Node", ["where": or])
                expectError(reply, code: 102, status: .badRequest)
                let cql = String(repeating: "(", count: levels) + "name = 'loop'" + String(repeating: ")", count: levels)
                let answer = try await api.get("/1.1/cloudQuery" + queryString(["cql": "select * from Node where " + cql]))
                expectError(answer, code: 300, status: .badRequest)
            }
            // Nesting the database can run is answered; deeper, though the parser took it, is
            // refused before SQL is built (102), not a 500 from the database's own parser.
            for op in ["$or", "$and"] {
                let most = String(repeating: "{\"\(op)\":[", count: 39) + "{\"name\":\"loop\"}" + String(repeating: "]}", count: 39)
                #expect(try await api.results("Node", ["where": most]).count == 1, "\(op)")
                let past = String(repeating: "{\"\(op)\":[", count: 49) + "{\"name\":\"loop\"}" + String(repeating: "]}", count: 49)
                expectError(try await api.find("Node", ["where": past]), code: 102, status: .badRequest)
            }
            // Four subqueries (each a nested SELECT), with seven levels of $or inside, are answered.
            var subquery = String(repeating: "{\"$or\":[", count: 7) + #"{"name":"loop"}"# + String(repeating: "]}", count: 7)
            for _ in 0..<4 { subquery = #"{"n":{"$inQuery":{"className":"Node","where":"# + subquery + "}}}" }
            #expect(try await api.results("Node", ["where": subquery]).count == 1)
            for wrap in [#"{"n":{"$select":{"key":"n","query":{"className":"Node","where":"# , #"{"$or":[{"n":{"$notInQuery":{"className":"Node","where":"#] {
                let deeper = wrap + subquery + (wrap.hasPrefix(#"{"$or""#) ? "}}}]}" : "}}}}")
                expectError(try await api.find("Node", ["where": deeper]), code: 102, status: .badRequest)
            }
            for levels in [10, 32] {
                var nested = #"{"name":"loop"}"#
                for _ in 0..<levels { nested = #"{"n":{"$inQuery":{"className":"Node","where":"# + nested + "}}}" }
                expectError(try await api.find("Node", ["where": nested]), code: 102, status: .badRequest)
            }
            let cql = String(repeating: "(", count: 20) + "name = 'loop'" + String(repeating: ")", count: 20)
            let answered = try await api.get("/1.1/cloudQuery" + queryString(["cql": "select * from Node where " + cql]))
            #expect(answered.status == .ok && answered.results.count == 1, "\(answered.status)")
            // Parentheses that alternate `or` and `and` nest conditions: past 40, refused as a `where` is.
            let alternating = (0..<45).map { "name = 'loop' " + ($0 % 2 == 0 ? "or (" : "and (") }.joined() + "name = 'loop'"
                + String(repeating: ")", count: 45)
            let refused = try await api.get("/1.1/cloudQuery" + queryString(["cql": "select * from Node where " + alternating]))
            expectError(refused, code: 300, status: .badRequest)
            // A key path names at most as many levels as a value can have.
            let path = Self.path("a", 70_000)
            expectError(try await api.find("Node", ["where": "{\"\(path)\":1}"]), code: 102, status: .badRequest)
            expectError(try await api.find("Node", ["order": path]), code: 102, status: .badRequest)
            try await Self.expectAlive(api)
        }
    }

    /// An object holding 40 pointers to itself: each level of `include=x.x...` embeds 40 times
    /// the one below it.
    static func amplifier(_ api: API) async throws -> String {
        let id = try await api.create("Fan", ["name": "fan"])
        let pointer: JSONValue = ["__type": "Pointer", "className": "Fan", "objectId": .string(id)]
        let linked = try await api.put("/1.1/classes/Fan/\(id)", ["x": .array(Array(repeating: pointer, count: 40))])
        #expect(linked.status == .ok, "\(linked)")
        return id
    }

    @Test func includeAmplificationIsRefusedBeforeTheAnswerIsBuilt() async throws {
        try await TestServer.run { api in
            let id = try await Self.amplifier(api)
            // 40 + 1 600 included objects: answered in full.
            let two = try await api.fetch("Fan", id, ["include": "x.x"])
            let first = try #require(two["x"]?.arrayValue)
            #expect(first.count == 40 && first.allSatisfy { $0["__type"] == "Object" })
            #expect(first[0]["x"]?.arrayValue?.allSatisfy { $0["__type"] == "Object" } == true)
            // 64 000 more: past 10 000, refused (the fetch, the query, and with master too).
            expectError(try await api.get("/1.1/classes/Fan/\(id)?include=x.x.x"), code: 102, status: .badRequest)
            expectError(try await api.find("Fan", ["include": "x.x.x"]), code: 102, status: .badRequest)
            expectError(
                try await api.get("/1.1/classes/Fan?include=x.x.x.x.x.x.x.x.x.x", headers: Headers.master), code: 102,
                status: .badRequest)
            try await Self.expectAlive(api)
        }
    }

    @Test func aLowerBudgetIsTheDeployersChoice() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.answerLimits.maxIncludedObjects = 39 }) { api in
            let id = try await Self.amplifier(api)
            expectError(try await api.get("/1.1/classes/Fan/\(id)?include=x"), code: 102, status: .badRequest)
            #expect(try await api.fetch("Fan", id)["x"]?.arrayValue?.count == 40)
        }
        try await TestServer.run(dataDirectory: directory, configure: { $0.answerLimits.maxBytes = 256 * 1024 }) { api in
            let id = try #require(try await api.results("Fan").first?["objectId"]?.stringValue)
            // Forty copies of a 3 KB object fit in 256 KB; 1 600 of them don't.
            #expect(try await api.fetch("Fan", id, ["include": "x"])["x"]?.arrayValue?.count == 40)
            expectError(try await api.get("/1.1/classes/Fan/\(id)?include=x.x"), code: 102, status: .badRequest)
        }
    }

    /// A page whose rows pass the byte budget is refused with 102 (the engine stops reading at
    /// the first row past it: `EngineReadBudgetTests`), as is an include level of such rows; a
    /// page that fits is answered, and the host keeps serving.
    @Test func aPageOfRowsPastTheByteBudgetIsRefused() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.answerLimits.maxBytes = 35_000 }) { api in
            var pointers: [JSONValue] = []
            for index in 0..<10 {
                let id = try await api.create("Big", ["n": .int(Int64(index)), "b": .string(String(repeating: "A", count: 10_000))])
                pointers.append(["__type": "Pointer", "className": "Big", "objectId": .string(id)])
            }
            expectError(try await api.find("Big", ["limit": "1000"]), code: 102, status: .badRequest)
            #expect(try await api.results("Big", ["limit": "3"]).count == 3)
            let holder = try await api.create("Holder", ["x": .array(pointers)])
            expectError(try await api.get("/1.1/classes/Holder/\(holder)?include=x"), code: 102, status: .badRequest)
            expectError(try await api.find("Holder", ["include": "x"]), code: 102, status: .badRequest)
            #expect(try await api.fetch("Holder", holder)["x"]?.arrayValue?.count == 10)
            try await Self.expectAlive(api)
        }
    }

    @Test func aBatchSharesOneAnswerBudget() async throws {
        // Bytes enough that the 10 000 included objects are the limit reached (each read
        // answers about 135 KB: 120 reads spend the default 16 MB).
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.answerLimits.maxBytes = 64 * 1024 * 1024 }) { api in
            let id = try await Self.amplifier(api)
            let read: JSONValue = ["method": "GET", "path": .string("/1.1/classes/Fan/\(id)?include=x")]
            let reply = try await api.post("/1.1/batch", ["requests": .array(Array(repeating: read, count: 300))])
            #expect(reply.status == .ok)
            let items = try #require(reply.json?.arrayValue)
            #expect(items.count == 300)
            let answered = items.filter { $0["success"] != nil }.count
            // Each read includes 40 objects: 250 reads spend the 10 000; the rest are refused.
            #expect(answered == 250, "\(answered) answered")
            #expect(items.dropFirst(answered).allSatisfy { $0["error"]?["code"] == 102 })
            // The next request has a budget of its own.
            #expect(try await api.fetch("Fan", id, ["include": "x"])["x"]?.arrayValue?.count == 40)
            try await Self.expectAlive(api)
        }
    }

    /// Documents deeper than a request may be (written before the limit, or past the API):
    /// up to the stored limit they read, with includes; deeper ones are refused, not a crash.
    @Test func storedDocumentsDeeperThanRequestsReadAndDeeperStillAreRefused() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func nested(_ levels: Int) -> JSONValue {
            var value: JSONValue = "bottom"
            for _ in 0..<levels { value = ["d": value] }
            return value
        }
        let ids = try await FunctionHostServer.withStorage(
            dataDirectory: directory, database: TestDatabase.location(for: directory), logger: .init(label: "deep")
        ) { storage in
            let readable = try await storage.create("Deep", changes: ObjectChanges(fields: ["d": .set(nested(200))]))
            let pointer: JSONValue = ["__type": "Pointer", "className": "Deep", "objectId": .string(readable.objectId)]
            _ = try await storage.update(
                "Deep", id: readable.objectId, changes: ObjectChanges(fields: ["n": .set(pointer)]), condition: nil)
            let tooDeep = try await storage.create("Deeper", changes: ObjectChanges(fields: ["d": .set(nested(400))]))
            return (readable.objectId, tooDeep.objectId)
        }
        try await TestServer.run(dataDirectory: directory) { api in
            // Ten levels of a 200-deep object, each embedded in the last: 2 000 levels answered.
            let reply = try await api.get("/1.1/classes/Deep/\(ids.0)?include=\(Self.path("n", 10))")
            #expect(reply.status == .ok)
            #expect(reply.text.hasPrefix("{") && reply.text.contains("bottom"))
            expectError(try await api.get("/1.1/classes/Deeper/\(ids.1)"), code: 107, status: .badRequest)
            expectError(try await api.find("Deeper"), code: 107, status: .badRequest)
            try await Self.expectAlive(api)
        }
    }

    /// Finding 12: a File value is resolved (url, name, metadata) only for a caller who could
    /// get its `_File` object; others are answered the value as stored, `{__type, objectId}`.
    @Test func fileValuesAreResolvedOnlyForCallersWhoMayGetTheFile() async throws {
        try await TestServer.run { api in
            let file = try await FileFixture.upload(api, "note.txt", "hello")
            let fileId = try #require(file["objectId"]?.stringValue)
            let id = try await api.create("Doc", ["f": ["__type": "File", "objectId": .string(fileId)], "list": [["__type": "File", "objectId": .string(fileId)]]])
            #expect(try await api.fetch("Doc", id)["f"]?["url"] != nil)
            let closed = try await api.put(
                "/1.1/schemas/_File", headers: Headers.master,
                ["permissions": ["get": ["users": [], "roles": []], "find": ["users": [], "roles": []]]])
            #expect(closed.status == .ok, "\(closed)")
            let reference: JSONValue = ["__type": "File", "objectId": .string(fileId)]
            let fetched = try await api.fetch("Doc", id)
            #expect(fetched["f"] == reference && fetched["list"] == [reference], "\(fetched)")
            let found = try await api.results("Doc")
            #expect(found.first?["f"] == reference && found.first?["list"] == [reference], "\(found)")
            // Including an object that holds the file does not reveal it either.
            let holder = try await api.create("Holder", ["doc": ["__type": "Pointer", "className": "Doc", "objectId": .string(id)]])
            #expect(try await api.fetch("Holder", holder, ["include": "doc"])["doc"]?["f"] == reference)
            // The master key, and a caller the class permissions name, still get it resolved.
            #expect(try await api.fetch("Doc", id, headers: Headers.master)["f"]?["url"] != nil)
            expectForbidden(try await api.get("/1.1/classes/_File/\(fileId)"), "get")
            try await Self.expectAlive(api)
        }
    }
}
