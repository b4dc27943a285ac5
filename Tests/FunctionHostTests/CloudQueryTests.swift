import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import FunctionHost

/// `GET /1.1/cloudQuery`: CQL as seed 001 shows it, with placeholders, order, limit and count.
@Suite struct CloudQueryTests {
    static func seed(_ api: API) async throws {
        for (name, durability, tier) in [("sword", 100, 1), ("祈福", 100, 2), ("shield", 50, 2), ("bow", 75, 3)] {
            _ = try await api.create(
                "ATestClass", ["name": .string(name), "durability": .int(Int64(durability)), "tier": .int(Int64(tier))])
        }
    }

    static func names(_ reply: Reply) -> [String] {
        reply.results.compactMap { $0["name"]?.stringValue }
    }

    @Test func selectAllAndCount() async throws {
        try await TestServer.run { api in
            try await Self.seed(api)
            let all = try await api.get("/1.1/cloudQuery" + queryString(["cql": "select * from ATestClass"]))
            #expect(all.status == .ok, "\(all)")
            #expect(all["className"] == "ATestClass")
            #expect(Self.names(all) == ["sword", "祈福", "shield", "bow"])
            #expect(all["count"] == nil)

            let count = try await api.get("/1.1/cloudQuery" + queryString(["cql": "select count(*) from ATestClass"]))
            #expect(count["count"] == 4, "\(count)")
            #expect(count.results.isEmpty)
        }
    }

    @Test func placeholdersAreReplacedInOrder() async throws {
        try await TestServer.run { api in
            try await Self.seed(api)
            let reply = try await api.get(
                "/1.1/cloudQuery"
                    + queryString([
                        "cql": "select * from ATestClass where durability = ? and name = ?", "pvalues": #"[100,"祈福"]"#,
                    ]))
            #expect(Self.names(reply) == ["祈福"], "\(reply)")
        }
    }

    @Test(arguments: [
        ("select * from ATestClass where durability >= 75 order by durability desc, name", ["sword", "祈福", "bow"]),
        ("select * from ATestClass where tier in (1, 3) order by name", ["bow", "sword"]),
        ("select * from ATestClass where tier not in (1, 3) order by name", ["shield", "祈福"]),
        ("select * from ATestClass where name like 's%' order by name", ["shield", "sword"]),
        ("select * from ATestClass where name not like 's%' order by name", ["bow", "祈福"]),
        ("select * from ATestClass where (tier = 2 or tier = 3) and durability < 100 order by name", ["bow", "shield"]),
        ("select * from ATestClass where name is exists and tier != 2 order by name", ["bow", "sword"]),
        ("select * from ATestClass where missing is not exists order by durability limit 1", ["shield"]),
        ("select * from ATestClass order by durability limit 1, 2", ["bow", "sword"]),
        ("select * from ATestClass where name regexp '^sh' ", ["shield"]),
    ])
    func statements(cql: String, expected: [String]) async throws {
        try await TestServer.run { api in
            try await Self.seed(api)
            let reply = try await api.get("/1.1/cloudQuery" + queryString(["cql": cql]))
            #expect(reply.status == .ok, "\(reply)")
            #expect(Self.names(reply) == expected, "\(cql): \(reply)")
        }
    }

    @Test func selectedKeysAndCountTogether() async throws {
        try await TestServer.run { api in
            try await Self.seed(api)
            let reply = try await api.get(
                "/1.1/cloudQuery" + queryString(["cql": "select name, count(*) from ATestClass where tier = 2 order by name"]))
            #expect(reply["count"] == 2, "\(reply)")
            #expect(Self.names(reply) == ["shield", "祈福"])
            #expect(reply.results.allSatisfy { $0["durability"] == nil && $0["objectId"] != nil })
        }
    }

    /// Valine loads a page's replies with the JS SDK's `AV.Query.doCloudQuery(cql)`: the ids
    /// JSON-quoted, REST's `-key` in `order by`, the key repeated.
    @Test func valineRepliesQuery() async throws {
        try await TestServer.run { api in
            let root = try await api.create("Comment", ["comment": "root", "url": "/post/"])
            let other = try await api.create("Comment", ["comment": "other", "url": "/post/"])
            for (rid, text) in [(root, "r1"), (other, "o1"), (root, "r2"), ("elsewhere", "x"), (other, "o2")] {
                _ = try await api.create("Comment", ["comment": .string(text), "rid": .string(rid), "url": "/post/"])
            }
            let ids = "\"\(root)\",\"\(other)\""
            let cql = "select * from Comment where rid in (\(ids)) order by -createdAt,-createdAt"
            let timestamp = String(ObjectID.currentMilliseconds())
            let headers = Headers.make([("X-LC-Id", "app"), ("X-LC-Sign", MD5.hex(timestamp + "key") + "," + timestamp)])
            let reply = try await api.get("/1.1/cloudQuery" + queryString(["cql": cql]), headers: headers)
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply.results.map { $0["comment"] } == ["o2", "r2", "o1", "r1"], "\(reply)")
        }
    }

    @Test(arguments: [
        ("select * from ATestClass order by -durability, name", ["sword", "祈福", "bow", "shield"]),
        ("select * from ATestClass order by tier desc, -name", ["bow", "祈福", "shield", "sword"]),
        ("select * from ATestClass order by -tier, tier asc, name asc", ["bow", "shield", "祈福", "sword"]),
        ("select * from ATestClass where durability > -1 order by -name limit 2", ["祈福", "sword"]),
    ])
    func restOrderKeys(cql: String, expected: [String]) async throws {
        try await TestServer.run { api in
            try await Self.seed(api)
            let reply = try await api.get("/1.1/cloudQuery" + queryString(["cql": cql]))
            #expect(reply.status == .ok, "\(reply)")
            #expect(Self.names(reply) == expected, "\(cql): \(reply)")
        }
    }

    @Test(arguments: [
        "select * from ATestClass order by -name desc",
        "select * from ATestClass order by --name", "select * from ATestClass where durability = 1 - 1",
        "select * from ATestClass order by -", "select * from ATestClass order by -$name",
        "selec * from ATestClass", "select * from", "select * from ATestClass where", "select * from ATestClass where a = ?",
        "select * from ATestClass where name = 'open",
        "select * from ATestClass where a ~ 1",
    ])
    func syntaxErrorsAnswer300(cql: String) async throws {
        try await TestServer.run { api in
            try await Self.seed(api)
            let reply = try await api.get("/1.1/cloudQuery" + queryString(["cql": cql]))
            expectError(reply, code: 300)
        }
    }
}
