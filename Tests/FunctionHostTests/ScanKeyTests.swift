import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// `GET /1.1/scan/classes/{Class}` with `scan_key`, as the Python SDK's `Query.scan(batch_size,
/// scan_key)` (`test_scan`) and the JS SDK's `Query#scan({orderedBy, batchSize})` send it: pages
/// ordered by the key, objectId breaking ties, every object once, `cursor` null after the last.
@Suite struct ScanKeyTests {
    /// Walks a scan to its end the way the Python SDK's `Cursor` does (`where`, `limit`,
    /// `scan_key`, then `cursor` from each answer until it is null); returns the objects.
    static func walk(
        _ api: API, _ className: String, scanKey: String, limit: Int, where condition: String = "{}",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [JSONValue] {
        var parameters = ["where": condition, "limit": String(limit), "scan_key": scanKey]
        var objects: [JSONValue] = []
        for _ in 0..<100 {
            let reply = try await api.get(
                "/1.1/scan/classes/\(className)" + queryString(parameters), headers: PythonSDKQueryTests.headers(master: true))
            #expect(reply.status == .ok, "\(parameters): \(reply)", sourceLocation: sourceLocation)
            let results = try #require(reply["results"]?.arrayValue, "\(reply)", sourceLocation: sourceLocation)
            #expect(results.count <= limit, sourceLocation: sourceLocation)
            objects += results
            guard case .string(let cursor)? = reply["cursor"] else {
                #expect(reply["cursor"] == .null, "\(reply)", sourceLocation: sourceLocation)
                return objects
            }
            parameters["cursor"] = cursor
        }
        Issue.record("the scan doesn't end", sourceLocation: sourceLocation)
        return objects
    }

    /// `test_scan`: ten GameScores with `random` values (some equal), batches of two by `random`.
    @Test func pythonSDKScanByANumberKey() async throws {
        try await TestServer.run { api in
            var ids: [String: Int64] = [:]
            for random in [42, 7, 42, 99, 0, 7, 63, 42, 15, 88] as [Int64] {
                ids[try await api.create("GameScore", ["random": .int(random)])] = random
            }
            let objects = try await Self.walk(api, "GameScore", scanKey: "random", limit: 2)
            let values = objects.compactMap { $0["random"]?.intValue }
            #expect(values == ids.values.sorted(), "\(objects)")
            let seen = objects.compactMap { $0["objectId"]?.stringValue }
            #expect(seen.count == ids.count && Set(seen) == Set(ids.keys), "each object once")
            // Equal values come in objectId order.
            for (a, b) in zip(objects, objects.dropFirst()) where a["random"] == b["random"] {
                #expect(a["objectId"]!.stringValue! < b["objectId"]!.stringValue!)
            }
            // The Python SDK's own check: each value at least the one before.
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        }
    }

    /// `-key` walks descending; objects without the key (or with null) come first ascending and
    /// last descending, and are not skipped, whatever the page size.
    @Test(arguments: [1, 2, 3, 4, 7, 100])
    func scanByAStringKeyBothWaysWithMissingValues(limit: Int) async throws {
        try await TestServer.run { api in
            for name in ["delta", "alpha", "charlie", "alpha", "bravo"] {
                _ = try await api.create("Crew", ["name": .string(name), "kept": true])
            }
            _ = try await api.create("Crew", ["kept": true])
            _ = try await api.create("Crew", ["name": .null, "kept": true])
            _ = try await api.create("Crew", ["name": "zulu", "kept": false])
            let kept = #"{"kept":true}"#
            let up = try await Self.walk(api, "Crew", scanKey: "name", limit: limit, where: kept)
            #expect(up.map { $0["name"]?.stringValue } == [nil, nil, "alpha", "alpha", "bravo", "charlie", "delta"], "\(up)")
            let down = try await Self.walk(api, "Crew", scanKey: "-name", limit: limit, where: kept)
            #expect(down.map { $0["name"]?.stringValue } == ["delta", "charlie", "bravo", "alpha", "alpha", nil, nil], "\(down)")
            #expect(Set(up.compactMap { $0["objectId"] }).count == 7)
            #expect(Set(down.compactMap { $0["objectId"] }).count == 7)
        }
    }

    /// Dates sort as instants: a Date field and the built-in `createdAt`.
    @Test func scanByDates() async throws {
        try await TestServer.run { api in
            var made: [String] = []
            for iso in ["2024-03-01T00:00:00.000Z", "2023-12-31T23:59:59.999Z", "2024-01-15T08:00:00.000Z"] {
                made.append(try await api.create("Event", ["at": ["__type": "Date", "iso": .string(iso)]]))
            }
            let byAt = try await Self.walk(api, "Event", scanKey: "at", limit: 1)
            let instants = byAt.compactMap { object in object["at"]?["iso"]?.stringValue }
            #expect(instants == ["2023-12-31T23:59:59.999Z", "2024-01-15T08:00:00.000Z", "2024-03-01T00:00:00.000Z"])
            let byCreation = try await Self.walk(api, "Event", scanKey: "-createdAt", limit: 2)
            let created = byCreation.compactMap { object in object["createdAt"]?.stringValue }
            let newestFirst = Array(created.sorted().reversed())
            #expect(created == newestFirst && created.count == 3, "\(byCreation)")
            #expect(Set(byCreation.compactMap { $0["objectId"]?.stringValue }) == Set(made))
        }
    }

    /// A key that has no order (a Boolean, an Array), a credential, a cursor made for another key
    /// or direction, or a forged one: 102 or 403, never a page.
    @Test func refusedScanKeysAndCursors() async throws {
        try await TestServer.run { api in
            for n in 0..<3 {
                _ = try await api.create("Crew", ["name": .string("n\(n)"), "flag": true, "tags": ["a"]])
            }
            let master = PythonSDKQueryTests.headers(master: true)
            func scan(_ className: String, _ parameters: [String: String]) async throws -> Reply {
                try await api.get("/1.1/scan/classes/\(className)" + queryString(parameters), headers: master)
            }
            for key in ["flag", "tags", "-tags", "ACL"] {
                expectError(try await scan("Crew", ["scan_key": key]), code: 102, status: .badRequest)
            }
            _ = try await api.post("/1.1/users", ["username": "ann", "password": "secret-1"])
            let credential = try await scan("_User", ["scan_key": "password"])
            #expect(credential.status == .forbidden, "\(credential)")
            #expect(credential["results"] == nil)

            let first = try await scan("Crew", ["scan_key": "name", "limit": "1"])
            let cursor = try #require(first["cursor"]?.stringValue, "\(first)")
            for (key, cursor) in [
                ("-name", cursor), ("objectId", cursor), ("flag", cursor),
                ("name", Data(#"{"key":"name","desc":false,"value":{"$gt":1},"id":"x"}"#.utf8).base64EncodedString()),
                ("name", Data(#"{"key":"name","desc":false,"value":"a"}"#.utf8).base64EncodedString()),
                ("name", Data("not json".utf8).base64EncodedString()),
                ("name", String(repeating: "A", count: 5000)),
            ] {
                let reply = try await scan("Crew", ["scan_key": key, "cursor": cursor])
                if key == "objectId" {
                    // An objectId cursor is any id: this one names none, so the walk goes on after it.
                    #expect(reply.status == .ok, "\(reply)")
                } else {
                    expectError(reply, code: 102, status: .badRequest)
                }
            }
            // The client key can't scan by a key either.
            let client = try await api.get("/1.1/scan/classes/Crew?scan_key=name", headers: PythonSDKQueryTests.headers())
            #expect(client.status == .forbidden, "\(client)")
        }
    }
}
