import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// What one server wrote, the next server on the same data directory serves.
@Suite struct PersistenceTests {
    struct Written: Sendable {
        let ownerId: String
        let keptId: String
        let deletedId: String
        let kept: JSONValue
    }

    @Test func objectsAndSchemaSurviveARestart() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let written = try await TestServer.run(dataDirectory: directory) { api in
            let ownerId = try await api.create("Owner", ["name": "Ada"])
            _ = try await api.fetch("Owner", ownerId)
            let keptId = try await api.create(
                "Item",
                [
                    "title": "kept", "n": 1, "when": date("2024-05-06T07:08:09.010Z"), "tags": ["a"],
                    "owner": pointer("Owner", ownerId), "geo": ["__type": "GeoPoint", "latitude": 1.5, "longitude": 2],
                    "ACL": ["*": ["read": true, "write": true]],
                ])
            _ = try await api.put("/1.1/classes/Item/\(keptId)", ["n": op("Increment", ["amount": 41]), "tags": op("Add", ["objects": ["b"]])])
            let deletedId = try await api.create("Item", ["title": "deleted", "n": 2])
            _ = try await api.delete("/1.1/classes/Item/\(deletedId)")
            return Written(ownerId: ownerId, keptId: keptId, deletedId: deletedId, kept: try await api.fetch("Item", keptId))
        }
        #expect(written.kept["n"] == 42)
        #expect(TestDatabase.isPostgres || FileManager.default.fileExists(atPath: directory + "/functionhost.sqlite"))

        try await TestServer.run(dataDirectory: directory) { api in
            // The objects, exactly as they were served before.
            #expect(try await api.fetch("Item", written.keptId) == written.kept)
            #expect(try await api.get("/1.1/classes/Item/\(written.deletedId)").text == "{}")
            #expect(try await api.results("Item").map { $0["objectId"] } == [.string(written.keptId)])
            #expect(try await api.fetch("Owner", written.ownerId)["name"] == "Ada")

            // The schema: recorded types still lock their fields.
            expectError(try await api.post("/1.1/classes/Item", ["n": "text"]), code: 111, status: .badRequest)
            expectError(try await api.put("/1.1/classes/Item/\(written.keptId)", ["when": "text"]), code: 111, status: .badRequest)
            expectError(try await api.post("/1.1/classes/Item", ["tags": 1]), code: 111, status: .badRequest)
            // ... and the classes are known, pointers to them included.
            let pointed = try await api.post("/1.1/classes/Item", ["title": "new", "owner": pointer("Owner", written.ownerId)])
            #expect(pointed.status == .created, "\(pointed)")

            // Queries use the recorded types.
            #expect(try await api.matching("Item", #"{"tags":"b"}"#).count == 1)
            #expect(try await api.matching("Item", #"{"n":{"$gte":42}}"#).count == 1)
            #expect(try await api.matching("Item", #"{"when":{"$lt":{"__type":"Date","iso":"2025-01-01T00:00:00Z"}}}"#).count == 1)

            // Operations continue from the stored values.
            let incremented = try await api.put(
                "/1.1/classes/Item/\(written.keptId)?fetchWhenSave=true", ["n": op("Increment")])
            #expect(incremented["n"] == 43)
        }

        // And a third start sees the second one's writes.
        try await TestServer.run(dataDirectory: directory) { api async throws in
            #expect(try await api.count("Item") == 2)
            #expect(try await api.fetch("Item", written.keptId)["n"] == 43)
        }
    }

    @Test func aClassCreatedInTheFirstRunIsKnownInTheSecond() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let id = try await TestServer.run(dataDirectory: directory) { api in
            try await api.create("Lonely", ["x": 1])
        }
        try await TestServer.run(dataDirectory: directory) { api in
            // A missing id in a known class is {}, not 404.
            #expect(try await api.get("/1.1/classes/Lonely/000000000000000000000000").text == "{}")
            // A pointer to it is accepted without touching the class first.
            let reply = try await api.post("/1.1/classes/Ref", ["to": pointer("Lonely", id)])
            #expect(reply.status == .created, "\(reply)")
        }
    }

    @Test func aDataDirectoryIsCreatedWhenMissing() async throws {
        let parent = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let directory = parent + "/nested/data"
        try await TestServer.run(dataDirectory: directory) { api in
            _ = try await api.create("Todo", ["title": "x"])
        }
        #expect(TestDatabase.isPostgres || FileManager.default.fileExists(atPath: directory + "/functionhost.sqlite"))
    }

    @Test func serversOnDifferentDirectoriesDoNotShareData() async throws {
        let first = try TestServer.makeDataDirectory()
        let second = try TestServer.makeDataDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        _ = try await TestServer.run(dataDirectory: first) { api in try await api.create("Todo", ["title": "x"]) }
        try await TestServer.run(dataDirectory: second) { api async throws in
            #expect(try await api.count("Todo") == nil)
        }
    }
}
