import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// `functionhost indexes list|drop`, run as the built executable on the database of a data
/// directory (or the test's PostgreSQL schema).
@Suite struct IndexCommandTests {
    @Test func listShowsTheIndexesAndDropRemovesOnlyAutomaticOnes() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = ImportCommandTests.target(directory)
        try await TestServer.run(dataDirectory: directory) { api in
            _ = try await api.create("Post", ["score": 1, "title": "a"])
            let reply = try await api.find("Post", ["where": "{\"score\":1}", "order": "title"], headers: Headers.master)
            #expect(reply.status == .ok, "\(reply)")
        }

        let list = try await CLI.functionhost(["indexes", "list", "Post"] + target, port: 0)
        #expect(list.status == 0, "\(list)")
        let lines = list.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Post") && $0.contains("ix_score") && $0.contains("automatic") }, "\(list)")
        #expect(lines.contains { $0.contains("ix_title") && $0.contains("automatic") }, "\(list)")
        #expect(lines.contains { $0.contains("created") && $0.contains("schema") }, "\(list)")

        let everyClass = try await CLI.functionhost(["indexes", "list"] + target, port: 0)
        #expect(everyClass.status == 0 && everyClass.output.contains("ix_score"), "\(everyClass)")

        // The schema's own indexes are not the command's to drop.
        let schema = try await CLI.functionhost(["indexes", "drop", "Post", "created"] + target, port: 0)
        #expect(schema.status != 0 && schema.errors.contains("no automatic index named created"), "\(schema)")
        let unknown = try await CLI.functionhost(["indexes", "list", "Nope"] + target, port: 0)
        #expect(unknown.status != 0 && unknown.errors.contains("doesn't exist"), "\(unknown)")

        let drop = try await CLI.functionhost(["indexes", "drop", "Post", "ix_score"] + target, port: 0)
        #expect(drop.status == 0 && drop.output.contains("Dropped ix_score of Post."), "\(drop)")
        let after = try await IndexAbuseTests.automatic(directory, "Post")
        #expect(after == ["ix_title"], "\(after)")
    }

    @Test func aMissingDatabaseIsSaidSo() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard !TestDatabase.isPostgres else { return }
        let run = try await CLI.functionhost(["indexes", "list", "--data-dir", directory + "/none"], port: 0)
        #expect(run.status != 0 && run.errors.contains("No database in"), "\(run)")
    }
}
