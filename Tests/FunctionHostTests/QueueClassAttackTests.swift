import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 35: the Cloud Queue's records (`_CloudTask`: tasks with their params, results and
/// logs; `_Timer`: timers) are the host's alone. No data request reaches them, not even with
/// the master key: the master key manages tasks and timers through the queue's own routes.
@Suite struct QueueClassAttackTests {
    /// Stores a task and a timer as the host does, on the server's own database.
    static func seed(_ directory: String) async throws {
        let host = Caller.master.withoutHooks
        if let location = TestDatabase.location(for: directory) {
            let storage = try await PostgresStorage(location: location)
            do {
                try await seed(DataService(storage: storage), host)
            } catch {
                await storage.close()
                throw error
            }
            await storage.close()
        } else {
            try await seed(DataService(sqlite: try SQLiteStorage(path: directory + "/functionhost.sqlite")), host)
        }
    }

    private static func seed(_ data: DataService, _ host: Caller) async throws {
        _ = try await data.create(
            "_CloudTask", body: ["uniqueId": "t1", "paramsJSON": #"{"card":"4242-secret"}"#, "ACL": [:]], objectId: "qseed", caller: host)
        _ = try await data.create(
            "_Timer", body: ["name": "nightly", "paramsJSON": #"{"card":"4242-secret"}"#, "ACL": [:]], objectId: "tseed", caller: host)
    }

    @Test(arguments: ["_CloudTask", "_Timer"])
    func noDataRequestReachesTheQueuesRecords(className: String) async throws {
        try await EdgeFixture.run { api, directory in
            try await Self.seed(directory)
            let id = className == "_CloudTask" ? "qseed" : "tseed"
            _ = try await api.create("Probe", ["name": "probe"])
            let cql = "select * from \(className)".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            for headers in [Headers.master, Headers.client] {
                let replies = [
                    try await api.get("/1.1/classes/\(className)", headers: headers),
                    try await api.get("/1.1/classes/\(className)?count=1&limit=0", headers: headers),
                    try await api.get("/1.1/classes/\(className)/\(id)", headers: headers),
                    try await api.get("/1.1/cloudQuery?cql=" + cql, headers: headers),
                    try await api.get("/1.1/scan/classes/\(className)", headers: headers),
                    try await api.find(
                        "Probe", ["where": #"{"ref":{"$inQuery":{"className":"\#(className)","where":{}}}}"#], headers: headers),
                    try await api.find(
                        "Probe", ["where": #"{"name":{"$select":{"query":{"className":"\#(className)"},"key":"uniqueId"}}}"#],
                        headers: headers),
                    try await api.post("/1.1/classes/\(className)", headers: headers, ["uniqueId": "mine", "status": "queued"]),
                    try await api.put("/1.1/classes/\(className)/\(id)", headers: headers, ["status": "success"]),
                    try await api.delete("/1.1/classes/\(className)/\(id)", headers: headers),
                ]
                for reply in replies {
                    expectError(reply, code: 119, status: .forbidden)
                    #expect(!reply.text.contains("4242-secret"), "\(reply)")
                }
                let batch = try await api.post(
                    "/1.1/batch", headers: headers,
                    [
                        "requests": [
                            ["method": "GET", "path": .string("/1.1/classes/\(className)")],
                            ["method": "PUT", "path": .string("/1.1/classes/\(className)/\(id)"), "body": ["status": "queued"]],
                            ["method": "POST", "path": .string("/1.1/classes/\(className)"), "body": ["uniqueId": "x"]],
                            ["method": "DELETE", "path": .string("/1.1/classes/\(className)/\(id)")],
                        ]
                    ])
                #expect(batch.json?.arrayValue?.count == 4, "\(batch)")
                #expect(batch.json?.arrayValue?.allSatisfy { $0["error"]?["code"] == 119 } == true, "\(batch)")
                #expect(!batch.text.contains("4242-secret"))
            }
            let schema = try await api.get("/1.1/schemas/\(className)", headers: Headers.master)
            expectError(schema, code: 119, status: .forbidden)
            let schemas = try await api.get("/1.1/schemas", headers: Headers.master)
            #expect(schemas.status == .ok && schemas.json?[className] == nil, "\(schemas)")
            // An include through a Pointer to a queue record leaves the Pointer.
            let probe = try await api.create("Probe", ["ref": pointer(className, id)], headers: Headers.master)
            let included = try await api.fetch("Probe", probe, ["include": "ref"], headers: Headers.master)
            #expect(included["ref"] == pointer(className, id), "\(included)")

            // The records are untouched.
            if TestDatabase.server == nil {
                let data = DataService(sqlite: try SQLiteStorage(path: directory + "/functionhost.sqlite"))
                let stored = try await data.fetch(className, id: id, caller: .master)
                #expect(stored?.fields["status"] == nil && stored?.fields["paramsJSON"] == #"{"card":"4242-secret"}"#)
            }
        }
    }
}
