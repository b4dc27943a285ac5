import AsyncHTTPClient
import Foundation
import JSON
import NIOCore
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

@testable import DataAPI

/// The built server killed with SIGKILL while clients create, update and delete objects of a
/// class search is on for: after each kill the SQLite file's full-text index holds exactly what
/// the analyzer makes of every row (no row missing from it, none left over), because each
/// write changes its row and its index row in one transaction.
@Suite struct SearchCrashTests {
    /// Acknowledged writes and the ids created, shared by the writers of a round.
    final class Round: Sendable {
        struct State {
            var acknowledged = 0
            var ids: [String] = []
            var stopped = false
            var timedOut = false
        }
        let state = Mutex(State())
        let target: Int
        let reached: AsyncStream<Void>.Continuation
        init(target: Int, reached: AsyncStream<Void>.Continuation) {
            self.target = target
            self.reached = reached
        }

        /// Counts an acknowledged write; the target-th one lets the test kill the server.
        func acknowledge(created id: String? = nil) {
            let count = state.withLock { state in
                if let id { state.ids.append(id) }
                state.acknowledged += 1
                return state.acknowledged
            }
            if count == target { reached.yield() }
        }
    }

    static let words = ["apple", "banana", "Cola", "fox", "swift", "北京", "天气", "可口可乐", "狐狸", "下雨"]

    @Test func killDuringWritesLeavesIndexAndRowsAgreeing() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/functionhost.sqlite"
        do {
            // Search is on before the server first opens the file.
            let storage = try SQLiteStorage(path: path)
            _ = try await storage.create("Doc", changes: ObjectChanges(fields: ["title": .set("种子 seed")]))
            try await storage.setSearch("Doc", to: SearchSettings(className: "Doc", fields: ["title", "tags"]))
        }
        var random = SplitMix64(seed: 34)
        for round in 0..<3 {
            let port = Ports.free()
            let process = try Self.startServer(directory: directory, port: port)
            let reached = AsyncStream<Void>.makeStream()
            let state = Round(target: 40 + Int(random.next() % 120), reached: reached.continuation)
            let seeds = (0..<6).map { _ in random.next() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for seed in seeds {
                    group.addTask { await Self.write(port: port, round: state, seed: seed) }
                }
                group.addTask {
                    // Bounded: a server that stops answering fails the test instead of hanging it.
                    try await Task.sleep(for: .seconds(120))
                    state.state.withLock { $0.timedOut = true }
                    reached.continuation.yield()
                }
                var iterator = reached.stream.makeAsyncIterator()
                await iterator.next()
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                state.state.withLock { $0.stopped = true }
                group.cancelAll()
            }
            #expect(!state.state.withLock { $0.timedOut }, "round \(round): the writes were not acknowledged in time")
            #expect(process.terminationReason == .uncaughtSignal, "round \(round)")
            try await Self.checkIndex(path: path, round: round)
        }
    }

    static func startServer(directory: String, port: Int) throws -> Process {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", directory, "--functions",
            directory + "/no-functions",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["LEANCLOUD_APP_ID"] = "app"
        environment["LEANCLOUD_APP_KEY"] = "key"
        environment["LEANCLOUD_APP_MASTER_KEY"] = "master"
        environment["LOG_LEVEL"] = "error"
        environment["FUNCTIONHOST_TEST_DATABASE_URL"] = nil
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// One client's writes until the server dies: creates, updates of indexed and other fields,
    /// deletes and multi-object deletes.
    static func write(port: Int, round: Round, seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        func text() -> String {
            (0..<(1 + Int(random.next() % 4))).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        }
        while !round.state.withLock({ $0.stopped }) {
            let ids = round.state.withLock { $0.ids }
            let kind = ids.count < 4 ? 0 : random.next() % 10
            let id = ids.isEmpty ? "" : ids[Int(random.next() % UInt64(ids.count))]
            let request: (HTTPMethod, String, JSONValue?)
            switch kind {
            case 0...4:
                request = (.POST, "/1.1/classes/Doc", ["title": .string(text()), "tags": [.string(text())], "n": 1])
            case 5, 6:
                request = (.PUT, "/1.1/classes/Doc/\(id)", ["title": .string(text())])
            case 7:
                request = (.PUT, "/1.1/classes/Doc/\(id)", ["n": ["__op": "Increment", "amount": 1]])
            case 8:
                request = (.DELETE, "/1.1/classes/Doc/\(id)", nil)
            default:
                let other = ids[Int(random.next() % UInt64(ids.count))]
                request = (.DELETE, "/1.1/classes/Doc/\(id),\(other)", nil)
            }
            guard let (status, body) = try? await send(port: port, request.0, request.1, request.2) else { return }
            guard status / 100 == 2 else { continue }
            round.acknowledge(created: kind <= 4 ? body?["objectId"]?.stringValue : nil)
        }
    }

    static func send(port: Int, _ method: HTTPMethod, _ path: String, _ body: JSONValue?) async throws -> (Int, JSONValue?) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "X-LC-Id", value: "app")
        request.headers.add(name: "X-LC-Key", value: "key")
        request.headers.add(name: "Content-Type", value: "application/json")
        if let body { request.body = .bytes(ByteBuffer(bytes: body.jsonBytes)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), try? JSONValue.parsed(Array(buffer: bytes)))
    }

    /// Opens the file as the next start would and compares its index with its rows.
    static func checkIndex(path: String, round: Int) async throws {
        let storage = try SQLiteStorage(path: path)
        let disagreements = try await storage.searchIndexDisagreements("Doc")
        #expect(disagreements.objects.isEmpty, "round \(round)")
        #expect(disagreements.orphans == 0, "round \(round)")
        let all = try await storage.count(ObjectQuery(className: "Doc"))
        let found = try await storage.search(
            SearchPlan(className: "Doc", expression: .everything, restriction: nil, order: .relevance, window: 100_000))
        #expect(all > 1 && found.hits == all, "round \(round)")
        let indexed = try await storage.search(
            SearchPlan(className: "Doc", expression: .text(SearchAnalyzer.match("可乐")!), restriction: nil, order: .relevance, window: 0))
        #expect(indexed.hits > 0, "round \(round)")
    }
}
