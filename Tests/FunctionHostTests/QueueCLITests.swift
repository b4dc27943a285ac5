import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `functionhost tasks list|show|retry`, the built executable against a live server whose queue
/// runs on a clock the test moves.
@Suite struct QueueCLITests {
    @Test func aDeadLetterIsListedShownAndRetriedFromTheCommandLine() async throws {
        let fixture = QueueFixture()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, transport: .socket, configure: fixture.configure) { api in
            let port = api.port
            // A task of a function there is none of: it fails at once, for good.
            let queued = try await api.post(
                "/1.1/engine/cloud-queue/tasks", headers: Headers.master, ["function": "nope", "uniqueId": "dead1"])
            #expect(queued.status == .ok, "\(queued)")
            _ = await fixture.waitForAttempts("dead1", count: 1)

            let listed = try await CLI.functionhost(["tasks", "list", "--status", "failed"], port: port)
            #expect(listed.status == 0 && listed.output.contains("dead1  failed  nope  attempt 1/1"), "\(listed)")
            let json = try await CLI.functionhost(["tasks", "list", "--json"], port: port)
            #expect(try JSONValue(parsing: Array(json.output.utf8))["results"]?.arrayValue?.count == 1, "\(json)")
            let shown = try await CLI.functionhost(["tasks", "show", "dead1"], port: port)
            #expect(shown.status == 0 && shown.output.contains("dead1  failed"), "\(shown)")
            // With its attempts (the master's `?detail=1`).
            #expect(shown.output.contains("attempt 1: error on "), "\(shown)")
            let retried = try await CLI.functionhost(["tasks", "retry", "dead1"], port: port)
            #expect(retried.status == 0 && retried.output.contains("Queued again") && retried.output.contains("dead1  queued"), "\(retried)")
            _ = await fixture.waitForAttempts("dead1", count: 2)
            let purged = try await CLI.functionhost(["tasks", "purge", "--status", "failed", "--function", "nope"], port: port)
            #expect(purged.status == 0 && purged.output.contains("Removed 1 failed task."), "\(purged)")
            #expect(try await api.get("/1.1/engine/cloud-queue/tasks", headers: Headers.master).results.isEmpty)

            // Failures: one line on standard error, a non-zero exit.
            let missing = try await CLI.functionhost(["tasks", "show", "nosuch"], port: port)
            #expect(missing.status != 0 && missing.errors.contains("nosuch"), "\(missing)")
            let bad = try await CLI.functionhost(["tasks", "list", "--limit", "0"], port: port)
            #expect(bad.status != 0, "\(bad)")
            let both = try await CLI.functionhost(["timers", "add", "t", "--function", "f", "--cron", "0 * * * * ?", "--every", "5"], port: port)
            #expect(both.status != 0 && both.errors.contains("exactly one of --cron and --every"), "\(both)")
        }
    }

    /// `timers add|list|run|remove` against the routes: the summary lines, a refused expression
    /// as one line on standard error, and the timer gone once removed.
    @Test func timersAreAddedListedRunAndRemovedFromTheCommandLine() async throws {
        let fixture = QueueFixture()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, transport: .socket, configure: fixture.configure) { api in
            let port = api.port
            let added = try await CLI.functionhost(["timers", "add", "nightly", "--function", "nope", "--cron", "0 30 3 * * ?"], port: port)
            #expect(added.status == 0 && added.output.contains("nightly  nope  cron '0 30 3 * * ?'  production  enabled  api"), "\(added)")
            let refused = try await CLI.functionhost(["timers", "add", "bad", "--function", "nope", "--cron", "0 61 * * * ?"], port: port)
            #expect(refused.status != 0 && refused.errors.contains("minute field"), "\(refused)")
            let listed = try await CLI.functionhost(["timers", "list"], port: port)
            #expect(listed.status == 0 && listed.output.contains("nightly") && !listed.output.contains("bad"), "\(listed)")
            let fired = try await CLI.functionhost(["timers", "run", "nightly"], port: port)
            #expect(fired.status == 0 && fired.output.contains("task timer-nightly-run-"), "\(fired)")
            let removed = try await CLI.functionhost(["timers", "remove", "nightly"], port: port)
            #expect(removed.status == 0, "\(removed)")
            let gone = try await api.get("/1.1/engine/timers/nightly", headers: Headers.master)
            #expect(gone.status == .notFound, "\(gone)")
            let again = try await CLI.functionhost(["timers", "remove", "nightly"], port: port)
            #expect(again.status != 0 && again.errors.contains("nightly"), "\(again)")
        }
    }
}
