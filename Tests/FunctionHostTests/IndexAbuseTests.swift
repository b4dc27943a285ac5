import DataAPI
import Foundation
import HTTPTypes
import JSON
import Logging
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 23, item 5 (index abuse): with the app key alone, a client adds fields to a shared class
/// and queries each; every query used to create an index on its field, and every insert into the
/// class then paid for all of them. On both engines (`FUNCTIONHOST_TEST_DATABASE_URL`).
///
/// The numbers are the ones the README gives: an index after 20 queries of a field (at once for
/// the master key), at most 16 per class.
@Suite struct IndexAbuseTests {
    /// The indexes of a class in the database of a data directory, opened as the CLI opens it.
    static func indexes(_ dataDirectory: String, _ className: String) async throws -> [ClassIndex] {
        try await FunctionHostServer.withStorage(
            dataDirectory: dataDirectory, database: TestDatabase.location(for: dataDirectory), logger: Logger(label: "test")
        ) { storage in
            let administration = try #require(storage as? any IndexAdministration)
            return try await administration.indexes(of: className)
        }
    }

    /// The names of a class's automatic indexes.
    static func automatic(_ dataDirectory: String, _ className: String) async throws -> [String] {
        try await indexes(dataDirectory, className).filter(\.automatic).map(\.name)
    }

    /// Runs a server on a fresh data directory; the directory outlives it for a look at the database.
    static func run(_ body: @Sendable (API, String) async throws -> Void) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory) { api in try await body(api, directory) }
    }

    /// A client's query on `field == value`, which must succeed.
    static func query(_ api: API, _ className: String, _ field: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let reply = try await api.find(className, ["where": "{\"\(field)\":1}"])
        #expect(reply.status == .ok, "\(field): \(reply)", sourceLocation: sourceLocation)
    }

    /// Creates an object of `className` with the fields `f0` ... `f<count-1>`, as a client.
    static func addFields(_ api: API, _ className: String, count: Int) async throws {
        var fields: [String: JSONValue] = [:]
        for index in 0..<count { fields["f\(index)"] = .int(Int64(index)) }
        _ = try await api.create(className, .object(fields))
    }

    @Test func threeHundredQueriesOnThreeHundredAddedFieldsCreateNoIndex() async throws {
        try await Self.run { api, directory in
            try await Self.addFields(api, "Shared", count: 300)
            for index in 0..<300 { try await Self.query(api, "Shared", "f\(index)") }
            let automatic = try await Self.automatic(directory, "Shared")
            #expect(automatic.isEmpty, "\(automatic.count) automatic indexes: \(automatic.prefix(5))...")
        }
    }

    @Test func aFieldGetsItsIndexOnItsTwentiethQuery() async throws {
        try await Self.run { api, directory in
            try await Self.addFields(api, "Post", count: 1)
            for _ in 0..<19 { try await Self.query(api, "Post", "f0") }
            #expect(try await Self.automatic(directory, "Post").isEmpty)
            try await Self.query(api, "Post", "f0")
            #expect(try await Self.automatic(directory, "Post") == ["ix_f0"])
        }
    }

    @Test func fieldsQueriedOftenStillGetNoMoreThanTheCap() async throws {
        try await Self.run { api, directory in
            try await Self.addFields(api, "Busy", count: 20)
            for index in 0..<20 {
                for _ in 0..<20 { try await Self.query(api, "Busy", "f\(index)") }
            }
            let automatic = try await Self.automatic(directory, "Busy")
            #expect(automatic.count == 16, "\(automatic)")
            // The fields past the cap are still queried, without an index.
            try await Self.query(api, "Busy", "f19")
        }
    }

    @Test func theMasterKeysQueryIndexesAtOnceWithinTheCap() async throws {
        try await Self.run { api, directory in
            try await Self.addFields(api, "Owned", count: 20)
            let first = try await api.find("Owned", ["where": "{\"f0\":1}", "order": "-f1"], headers: Headers.master)
            #expect(first.status == .ok, "\(first)")
            #expect(try await Self.automatic(directory, "Owned").sorted() == ["ix_f0", "ix_f1"])
            for index in 2..<20 {
                let reply = try await api.find("Owned", ["where": "{\"f\(index)\":1}"], headers: Headers.master)
                #expect(reply.status == .ok, "\(reply)")
            }
            #expect(try await Self.automatic(directory, "Owned").count == 16)
        }
    }

    /// The cap is counted where the indexes are created, in the database: two hosts creating at
    /// once (master queries on 40 fields, each through both hosts, all at the same time) still
    /// stop at 16. Run several times, since a race shows only sometimes.
    @Test(arguments: 0..<5) func twoHostsCreatingAtOnceStayUnderTheCap(round: Int) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory) { a in
            try await TestServer.run(dataDirectory: directory) { b in
                try await Self.addFields(a, "Raced", count: 40)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<40 {
                        for host in [a, b] {
                            group.addTask {
                                let reply = try await host.find("Raced", ["where": "{\"f\(index)\":1}"], headers: Headers.master)
                                #expect(reply.status == .ok, "\(reply)")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
        let automatic = try await Self.automatic(directory, "Raced")
        #expect(automatic.count == 16, "round \(round): \(automatic)")
    }
}
