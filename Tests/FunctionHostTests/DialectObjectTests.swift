import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Objects and queries in the LAS and MaxLeap dialects, on the data LeanCloud's API serves
/// (`las-maxleap-dialects.md` §5, §6).
@Suite struct DialectObjectTests {
    // DOC:CloudData.md:86-91 / BAAS:CloudDataResource.java:62-69: create answers 200
    // {"objectId","createdAt"} with no Location.
    // DOC:CloudData.md:93-114: fetch answers the whole object; {} when not found.
    @Test(arguments: DialectCase.all)
    func createAndFetchShareLeanCloudsData(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let created = try await api.post(dialect.path("classes/Account"), headers: dialect.client, ["balance": 100])
            #expect(created.status == .ok, "\(created)")
            #expect(created.header("Location") == nil)
            #expect(fieldNames(created.json) == ["objectId", "createdAt"])
            #expect(isCanonicalISODate(created["createdAt"]?.stringValue))
            let id = try #require(created.objectId)
            // The same object through LeanCloud's API, and back.
            #expect(try await api.fetch("Account", id)["balance"] == 100)
            let fetched = try await api.get(dialect.path("classes/Account/\(id)"), headers: dialect.client)
            #expect(fetched.status == .ok && fetched["balance"] == 100 && fetched.objectId == id, "\(fetched)")
            let missing = try await api.get(dialect.path("classes/Account/0123456789abcdef01234567"), headers: dialect.client)
            #expect(missing.status == .ok && missing.json == [:], "\(missing)")
        }
    }

    // DOC:CloudData.md:116-133: PUT answers {"number":1,"updatedAt"} plus each Increment's new value;
    // BAAS:UpdateResult.java:76-88: number 0 (not an error) when nothing matched.
    // DOC:CloudData.md:208-217: DELETE answers {"number":1}.
    @Test(arguments: DialectCase.all)
    func updateAndDeleteAnswerCounts(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Account", ["balance": 100, "note": "open"])
            let updated = try await api.put(
                dialect.path("classes/Account/\(id)"), headers: dialect.client,
                ["balance": op("Increment", ["amount": 20]), "note": "top-up"])
            #expect(updated.status == .ok, "\(updated)")
            #expect(fieldNames(updated.json) == ["number", "updatedAt", "balance"], "\(updated)")
            #expect(updated["number"] == 1 && updated["balance"] == 120)
            #expect(isCanonicalISODate(updated["updatedAt"]?.stringValue))
            // Decrement, as the docs show it (DOC:CloudData.md:201).
            let lowered = try await api.put(
                dialect.path("classes/Account/\(id)"), headers: dialect.client, ["balance": op("Decrement", ["amount": 5])])
            #expect(lowered["balance"] == 115, "\(lowered)")
            // JS:lib/utils.js:414-417: ?new=true asks for the saved fields.
            let whole = try await api.put(dialect.path("classes/Account/\(id)?new=true"), headers: dialect.client, ["note": "x"])
            #expect(whole["number"] == 1 && whole["note"] == "x", "\(whole)")
            let nothing = try await api.put(
                dialect.path("classes/Account/0123456789abcdef01234567"), headers: dialect.client, ["note": "x"])
            #expect(nothing.status == .ok && nothing.json == ["number": 0], "\(nothing)")
            let deleted = try await api.delete(dialect.path("classes/Account/\(id)"), headers: dialect.client)
            #expect(deleted.status == .ok && deleted.json == ["number": 1], "\(deleted)")
            #expect(try await api.fetch("Account", id) == [:])
        }
    }

    // BAAS:CloudDataResource.java:119-146: POST /2.0/classes/<Class>/delete {"objectIds":[...]} → {"number":n}.
    @Test(arguments: DialectCase.families)
    func deleteManyCountsWhatExisted(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let a = try await api.create("Todo", ["n": 1])
            let b = try await api.create("Todo", ["n": 2])
            let kept = try await api.create("Todo", ["n": 3])
            let reply = try await api.post(
                dialect.path("classes/Todo/delete"), headers: dialect.client,
                ["objectIds": [.string(a), .string(b), "0123456789abcdef01234567"]])
            #expect(reply.status == .ok && reply.json == ["number": 2], "\(reply)")
            #expect(try await api.results("Todo").compactMap(\.["objectId"]) == [.string(kept)])
            // A locked object is refused, and nothing of the call is deleted.
            let locked = try await api.create("Todo", ["n": 4, "ACL": ["*": ["read": true]]])
            let refused = try await api.post(
                dialect.path("classes/Todo/delete"), headers: dialect.client, ["objectIds": [.string(kept), .string(locked)]])
            expectDialectError(refused, code: 119, status: .forbidden)
            #expect(try await api.results("Todo").count == 2)
        }
    }

    // DOC:CloudData.md:345-663: GET /2.0/classes/<Class>?where=…&order=…&limit=…&count=1;
    // BAAS:CloudDataResource.java:198-215: count is always written, -1 unless asked.
    // JS:lib/query.js:212-253: POST /2.0/classes/<Class>/query {"where":{…},"limit","order",…};
    // JAVA:MLClassManagerImpl.java:188-200: the same with where as a JSON string.
    @Test(arguments: DialectCase.all)
    func queriesInBothForms(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            for n in 1...4 { _ = try await api.create("Item", ["n": .int(Int64(n)), "tag": n % 2 == 0 ? "even" : "odd"]) }
            let plain = try await api.get(
                dialect.path("classes/Item?where=\(encode(#"{"tag":"even"}"#))&order=-n"), headers: dialect.client)
            #expect(plain["count"] == -1, "\(plain)")
            #expect(plain.results.map { $0["n"] } == [4, 2])
            let counted = try await api.get(dialect.path("classes/Item?count=1&limit=0"), headers: dialect.client)
            #expect(counted["count"] == 4 && counted.results.isEmpty, "\(counted)")
            // The JS SDK's body, with its transport fields.
            let js = try await api.post(
                dialect.path("classes/Item/query"), headers: dialect.client,
                [
                    "where": ["n": ["$gte": 2]], "order": "n", "limit": 2, "keys": "n", "_ApplicationId": "app",
                    "_ApplicationKey": "key", "_ClientVersion": "js2.1.7", "_InstallationId": "x",
                ])
            #expect(js.status == .ok, "\(js)")
            #expect(js.results.map { $0["n"] } == [2, 3])
            #expect(js.results.allSatisfy { $0["tag"] == nil })
            // The Java SDK's: where as text, count asked.
            let java = try await api.post(
                dialect.path("classes/Item/query"), headers: dialect.client,
                ["where": #"{"tag":"odd"}"#, "count": 1, "limit": 0])
            #expect(java["count"] == 2 && java.results.isEmpty, "\(java)")
            // A class that doesn't exist has no objects.
            let none = try await api.post(dialect.path("classes/Nothing/query"), headers: dialect.client, ["where": [:]])
            #expect(none.status == .ok && none.results.isEmpty, "\(none)")
            // A bad where is the dialect's error, not a 500.
            expectDialectError(
                try await api.post(dialect.path("classes/Item/query"), headers: dialect.client, ["where": "{not json"]), code: 102)
        }
    }

    // JS:lib/query.js:810-817: {"loc":{"$within":{"$box":[sw, ne]}}};
    // JS:lib/query.js:748-796: $nearSphere with $maxDistance in radians (km ÷ 6371.0).
    @Test(arguments: DialectCase.families)
    func geoPointsInBoxesAndRadians(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            func point(_ lat: Double, _ lon: Double) -> JSONValue {
                ["__type": "GeoPoint", "latitude": .double(lat), "longitude": .double(lon)]
            }
            for (name, lat, lon) in [("beijing", 39.9, 116.4), ("shanghai", 31.2, 121.5), ("tianjin", 39.1, 117.2)] {
                let reply = try await api.post(dialect.path("classes/City"), headers: dialect.client, ["name": .string(name), "loc": point(lat, lon)])
                #expect(reply.status == .ok, "\(reply)")
            }
            let boxed = try await api.post(
                dialect.path("classes/City/query"), headers: dialect.client,
                ["where": ["loc": ["$within": ["$box": [point(38, 115), point(41, 118)]]]], "order": "name"])
            #expect(boxed.results.compactMap { $0["name"]?.stringValue } == ["beijing", "tianjin"], "\(boxed)")
            let near = try await api.post(
                dialect.path("classes/City/query"), headers: dialect.client,
                ["where": ["loc": ["$nearSphere": point(39.9, 116.4), "$maxDistance": .double(200 / 6371.0)]]])
            #expect(near.results.compactMap { $0["name"]?.stringValue } == ["beijing", "tianjin"], "\(near)")
            #expect(near.results.first?["loc"]?["__type"] == "GeoPoint")
        }
    }

    // JS:lib/utils.js:426-446: _method, _ApplicationId, _ApplicationKey, _MasterKey, _ClientVersion,
    // _InstallationId, _SessionToken are copied into every body; never stored.
    @Test(arguments: DialectCase.families)
    func transportFieldsAreNeverStored(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let created = try await api.post(
                dialect.path("classes/Note"), headers: dialect.client,
                ["text": "hi", "_ApplicationId": "app", "_ApplicationKey": "key", "_ClientVersion": "2.1.7", "_InstallationId": "i",
                 "_SessionToken": "t", "_ApplicationProduction": 1])
            let id = try #require(created.objectId, "\(created)")
            // JS sends the real verb with `_method` in the body too.
            let updated = try await api.put(
                dialect.path("classes/Note/\(id)"), headers: dialect.client, ["text": "ho", "_method": "PUT", "_ApplicationId": "app"])
            #expect(updated["number"] == 1, "\(updated)")
            let stored = try await api.fetch("Note", id, headers: Headers.master)
            #expect(fieldNames(stored) == ["objectId", "createdAt", "updatedAt", "text", "ACL"], "\(stored)")
            #expect(stored["text"] == "ho")
        }
    }

    // Composed batch of las-maxleap-dialects.md §7: a raw array, errors in place;
    // BAAS:CloudDataBatchResource.java:97-126: methods upper-cased, any path containing classes/;
    // JS:lib/object.js:1190-1207: destroyAll sends lower-case delete with classes/<Class>/<id>.
    @Test(arguments: DialectCase.all)
    func batchAnswersARawArray(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let product = try await api.create("Product", ["price": 100])
            let gone = try await api.create("Product", ["price": 1])
            let reply = try await api.post(
                dialect.path("batch"), headers: dialect.client,
                [
                    "requests": [
                        ["method": "POST", "path": .string(dialect.path("classes/Product")), "body": ["name": "Chair"]],
                        ["method": "PUT", "path": .string(dialect.path("classes/Product/\(product)")),
                         "body": ["price": op("Increment", ["amount": -5])]],
                        ["method": "delete", "path": .string("classes/Product/\(gone)")],
                        ["method": "PUT", "path": .string("/1.1/classes/Product/\(product)"), "body": ["price": op("Multiply", ["amount": 2])]],
                        ["method": "delete", "path": "classes/Product/0123456789abcdef01234567"],
                    ]
                ])
            #expect(reply.status == .ok, "\(reply)")
            let entries = try #require(reply.json?.arrayValue, "\(reply)")
            try #require(entries.count == 5)
            #expect(fieldNames(entries[0]) == ["objectId", "createdAt"], "\(entries[0])")
            #expect(entries[1]["number"] == 1 && entries[1]["price"] == 95, "\(entries[1])")
            #expect(entries[2] == ["number": 1])
            #expect(fieldNames(entries[3]) == ["errorCode", "errorMessage"], "\(entries[3])")
            #expect(entries[4] == ["number": 0], "\(entries[4])")
            #expect(try await api.fetch("Product", product)["price"] == 95)
            // The same through /classes/batch (BAAS:CloudDataResource.java:219-267).
            let again = try await api.post(
                dialect.path("classes/batch"), headers: dialect.client,
                ["requests": [["method": "post", "path": "classes/Product", "body": ["name": "Desk"]]]])
            #expect(again.json?.arrayValue?.first?.objectValue?["objectId"] != nil, "\(again)")
        }
    }

    // BAAS:CloudDataBatchResource.java:43-55: at most 50 requests, else error code 1 for the whole call;
    // :97-126: only POST, PUT, DELETE.
    @Test(arguments: DialectCase.families)
    func batchLimitsAreWholeCallErrors(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let many = JSONValue.array(
                Array(repeating: ["method": "POST", "path": "classes/Thing", "body": [:]], count: 51))
            expectDialectError(try await api.post(dialect.path("batch"), headers: dialect.client, ["requests": many]), code: 1)
            expectDialectError(
                try await api.post(
                    dialect.path("batch"), headers: dialect.client, ["requests": [["method": "GET", "path": "classes/Thing"]]]),
                code: 1)
            expectDialectError(try await api.post(dialect.path("batch"), headers: dialect.client, ["requests": "x"]), code: 1)
            expectDialectError(
                try await api.post(
                    dialect.path("batch"), headers: dialect.client, ["requests": [["method": "POST", "path": "users"]]]),
                code: 1)
            #expect(try await api.count("Thing") == nil, "nothing of a refused batch was written")
        }
    }
}
