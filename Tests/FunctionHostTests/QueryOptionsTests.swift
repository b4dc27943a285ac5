import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Creates `count` objects of `className` through `/batch`, 500 at a time; each gets `index`.
func bulkCreate(_ api: API, _ className: String, count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    var index = 0
    while index < count {
        let end = min(index + 500, count)
        let requests: [JSONValue] = (index..<end).map { i in
            ["method": "POST", "path": .string("/1.1/classes/\(className)"), "body": ["index": .int(Int64(i))]]
        }
        let reply = try await api.post("/1.1/batch", ["requests": .array(requests)])
        #expect(reply.status == .ok, "\(reply.status)", sourceLocation: sourceLocation)
        let failed = (reply.json?.arrayValue ?? []).filter { $0["success"] == nil }
        #expect(failed.isEmpty, "\(failed.prefix(3))", sourceLocation: sourceLocation)
        index = end
    }
}

/// `order`, `limit`, `skip`, `keys`, `count`, `returnACL` and `include` on queries.
@Suite struct QueryOptionsTests {
    @Test(arguments: [
        ("score", ["elder", "apple", "banana", "date", "cherry"]),
        ("-score", ["cherry", "banana", "date", "apple", "elder"]),
        ("group,-score", ["cherry", "apple", "banana", "date", "elder"]),
        ("-group,name", ["elder", "banana", "date", "apple", "cherry"]),
        ("group, -name", ["cherry", "apple", "date", "banana", "elder"]),
        ("name", ["apple", "banana", "cherry", "date", "elder"]),
        ("-name", ["elder", "date", "cherry", "banana", "apple"]),
        ("when", ["elder", "apple", "banana", "cherry", "date"]),
        ("-when", ["date", "cherry", "banana", "apple", "elder"]),
        ("createdAt", ["apple", "banana", "cherry", "date", "elder"]),
        ("-meta.level,name", ["banana", "cherry", "apple", "date", "elder"]),
    ])
    func orderSortsByEachKeyInTurn(order: String, expected: [String]) async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            #expect(names(try await api.results("Item", ["order": order])) == expected)
        }
    }

    @Test func descendingCreatedAtIsNewestFirst() async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            let results = try await api.results("Item", ["order": "-createdAt"])
            #expect(Set(names(results)) == Set(QueryFixture.names))
            let dates = results.compactMap { $0["createdAt"]?.stringValue }
            #expect(dates.count == 5)
            #expect(dates == dates.sorted(by: >))
            let ascending = try await api.results("Item", ["order": "createdAt"]).compactMap { $0["createdAt"]?.stringValue }
            #expect(ascending == dates.sorted())
        }
    }

    @Test(arguments: ["a-b", "-", "$where", "name,-"])
    func invalidOrderIs102(order: String) async throws {
        try await TestServer.run { api in
            _ = try await api.create("Item", ["name": "x"])
            let reply = try await api.find("Item", ["order": order])
            expectError(reply, code: 102, status: .badRequest)
        }
    }

    @Test func limitDefaultsTo100() async throws {
        try await TestServer.run { api in
            try await bulkCreate(api, "Row", count: 105)
            #expect(try await api.results("Row").count == 100)
            #expect(try await api.results("Row", ["limit": "105"]).count == 105)
            let counted = try await api.find("Row", ["count": "1"])
            #expect(counted.results.count == 100)
            #expect(counted["count"] == 105)
        }
    }

    @Test func limitIsAtMost1000() async throws {
        try await TestServer.run { api in
            try await bulkCreate(api, "Row", count: 1001)
            let page = try await api.results("Row", ["limit": "1000", "order": "index"])
            #expect(page.count == 1000)
            #expect(page.first?["index"] == 0)
            #expect(page.last?["index"] == 999)
            let rest = try await api.results("Row", ["limit": "1000", "skip": "1000", "order": "index"])
            #expect(rest.map { $0["index"] } == [1000])
            // Past 1000 LeanCloud serves 1000, no error.
            #expect(try await api.results("Row", ["limit": "1001"]).count == 1000)
            #expect(try await api.count("Row") == 1001)
        }
    }

    @Test(arguments: [["limit": "-1"], ["limit": "abc"], ["limit": "1.5"], ["skip": "-1"], ["skip": "x"]])
    func invalidWindowIs102(parameters: [String: String]) async throws {
        try await TestServer.run { api in
            _ = try await api.create("Item", ["name": "x"])
            expectError(try await api.find("Item", parameters), code: 102, status: .badRequest)
        }
    }

    @Test func limitAndSkipPage() async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            #expect(names(try await api.results("Item", ["order": "score", "limit": "2"])) == ["elder", "apple"])
            #expect(names(try await api.results("Item", ["order": "score", "limit": "2", "skip": "2"])) == ["banana", "date"])
            #expect(names(try await api.results("Item", ["order": "score", "limit": "2", "skip": "4"])) == ["cherry"])
            #expect(try await api.results("Item", ["order": "score", "skip": "5"]).isEmpty)
            #expect(try await api.results("Item", ["limit": "0"]).isEmpty)
            #expect(names(try await api.results("Item", ["where": #"{"active":true}"#, "skip": "1", "order": "name"])) == ["cherry", "date"])
        }
    }

    @Test func keysSelectAndExcludeFields() async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            let selected = try await api.results("Item", ["keys": "name,score", "order": "name"])
            #expect(selected.count == 5)
            for result in selected {
                #expect(fieldNames(result) == ["name", "score", "objectId", "createdAt", "updatedAt"])
            }
            #expect(selected.first?["score"] == 10)

            let excluded = try await api.results("Item", ["keys": "-tags,-meta,-owner", "order": "name"])
            let apple = try #require(excluded.first?.objectValue)
            #expect(Set(apple.keys) == ["name", "score", "active", "when", "group", "objectId", "createdAt", "updatedAt"])

            // A dotted key keeps the top-level field.
            let dotted = try await api.results("Item", ["keys": "meta.level", "where": #"{"name":"apple"}"#])
            #expect(dotted.first?["meta"] == ["level": 1])
            #expect(dotted.first?["name"] == nil)
        }
    }

    @Test func countWithAndWithoutResults() async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            let all = try await api.find("Item", ["count": "1"])
            #expect(all["count"] == 5)
            #expect(all.results.count == 5)
            let onlyCount = try await api.find("Item", ["count": "1", "limit": "0"])
            #expect(onlyCount.json == ["results": [], "count": 5])
            let filtered = try await api.find("Item", ["count": "true", "where": #"{"active":true}"#, "limit": "1"])
            #expect(filtered["count"] == 3)
            #expect(filtered.results.count == 1)
            let skipped = try await api.find("Item", ["count": "1", "skip": "4"])
            #expect(skipped["count"] == 5)
            #expect(skipped.results.count == 1)
            let without = try await api.find("Item")
            #expect(without["count"] == nil)
            #expect(fieldNames(without.json) == ["results"])
        }
    }

    @Test func aclIsReturnedOnlyWhenAsked() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Doc", ["title": "public"])
            let acl: JSONValue = ["*": ["read": true], "u1": ["write": true]]
            _ = try await api.create("Doc", ["title": "custom", "ACL": acl])
            let plain = try await api.results("Doc", ["order": "title"])
            #expect(plain.count == 2)
            #expect(plain.allSatisfy { $0["ACL"] == nil })
            let withACL = try await api.results("Doc", ["order": "title", "returnACL": "true"])
            #expect(withACL.map { $0["ACL"] } == [acl, ["*": ["read": true, "write": true]]])
        }
    }

    @Test func includeResolvesPointersInResults() async throws {
        try await TestServer.run { api in
            let fixture = try await QueryFixture.seed(api)
            let results = try await api.results("Item", ["include": "owner", "order": "name"])
            #expect(names(results) == QueryFixture.names)
            let owners = results.map { $0["owner"] }
            #expect(owners[0]?["__type"] == "Object")
            #expect(owners[0]?["name"] == "Ada")
            #expect(owners[0]?["objectId"] == .string(fixture.owners[0]))
            #expect(owners[1]?["name"] == "Bob")
            #expect(owners[2]?["name"] == "Ada")
            #expect(owners[3] == nil && owners[4] == nil)
            // Without include, pointers stay pointers.
            let plain = try await api.results("Item", ["order": "name", "limit": "1"])
            #expect(plain.first?["owner"] == pointer("Owner", fixture.owners[0]))
        }
    }

    @Test func nestedIncludeResolvesEachLevel() async throws {
        try await TestServer.run { api in
            let fixture = try await QueryFixture.seed(api)
            let apple = try #require(fixture.items["apple"])
            let banana = try #require(fixture.items["banana"])
            _ = try await api.create("Comment", ["text": "1", "item": pointer("Item", apple), "items": [pointer("Item", banana)]])
            let results = try await api.results("Comment", ["include": "item.owner,items"])
            let item = try #require(results.first?["item"])
            #expect(item["__type"] == "Object")
            #expect(item["name"] == "apple")
            #expect(item["owner"]?["__type"] == "Object")
            #expect(item["owner"]?["name"] == "Ada")
            // Pointers inside arrays are resolved too.
            #expect(results.first?["items"]?.arrayValue?.first?["name"] == "banana")
            // Fetch accepts the same paths.
            let commentId = try #require(results.first?["objectId"]?.stringValue)
            let fetched = try await api.fetch("Comment", commentId, ["include": "item.owner"])
            #expect(fetched["item"]?["owner"]?["name"] == "Ada")
        }
    }

    @Test func emptyAndSystemClasses() async throws {
        try await TestServer.run { api in
            // System classes exist before their first write.
            let roles = try await api.find("_Role", ["count": "1"])
            #expect(roles.json == ["results": [], "count": 0])
            // A class whose objects were all deleted still exists.
            let id = try await api.create("Gone", ["x": 1])
            _ = try await api.delete("/1.1/classes/Gone/\(id)")
            #expect(try await api.results("Gone").isEmpty)
            #expect(try await api.count("Gone") == 0)
        }
    }
}
