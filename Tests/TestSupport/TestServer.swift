package import FunctionHost
import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
package import Logging

/// A FunctionHost server for the duration of one test, on its own temporary data directory.
///
/// Requests reach it in process by default: Hummingbird's test client hands each one to the
/// router the server runs, with its middleware and services, and no socket or port. A test whose
/// point is the socket (the peer's address, `X-Forwarded-For` from a trusted proxy, a URL built
/// from the server's own address and port, a streamed upload, a second client or a child process
/// talking to the server) asks for `.socket`.
package enum TestServer {
    /// How a test's requests reach its server.
    package enum Transport: Sendable {
        /// Straight to the router, in this process: the peer and server addresses are unknown.
        case inProcess
        /// Over a loopback connection to a server listening on a port of its own.
        case socket
    }

    /// The keys every test server uses.
    package static let keys = AppKeys(appId: "app", appKey: "key", masterKey: "master", hookKey: "hook")

    /// A new, empty directory under the temporary directory.
    package static func makeDataDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("FunctionHostTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// Starts a server on a fresh data directory, runs `body` against it, stops the server and
    /// removes the directory.
    package static func run<Value: Sendable>(
        functions: FunctionRegistry = FunctionRegistry(), transport: Transport = .inProcess,
        _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let directory = try makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await run(dataDirectory: directory, functions: functions, transport: transport, body)
    }

    /// Starts a server on `dataDirectory` (which is kept), runs `body`, stops the server.
    package static func run<Value: Sendable>(
        dataDirectory: String, keys: AppKeys = TestServer.keys, functions: FunctionRegistry = FunctionRegistry(),
        functionsDirectory: String? = nil, javaScriptTimeout: Duration = .seconds(15), transport: Transport = .inProcess,
        configure: (inout HostConfiguration) -> Void = { _ in }, logger: Logger = Logger(label: "functionhost"),
        _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        // Without a functions directory of its own, a test loads no JavaScript.
        var configuration = HostConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: dataDirectory,
            functionsDirectory: functionsDirectory ?? dataDirectory, keys: keys, functions: functions)
        configuration.javaScriptTimeout = javaScriptTimeout
        configuration.database = TestDatabase.location(for: dataDirectory)
        // Each host on PostgreSQL would also open the change feed's pool and its follower's
        // connection; hundreds of tests at once then pass the server's `max_connections`. The
        // tests of LiveQuery across hosts turn it back on.
        configuration.liveQueryAcrossHosts = false
        // Statements wait for each other's locks (index builds, unique checks) and for the CPU;
        // on a busy machine the default 5 s budget is passed by tests that race many writers,
        // which are not about the budget. The tests of the budget set their own.
        configuration.statementBudget = StatementBudget(time: .seconds(60))
        configure(&configuration)
        let setup: TestingSetup =
            switch transport {
            case .inProcess: .router
            case .socket: .live
            }
        let configured = configuration
        return try await DatabaseSlots.shared.withSlot {
            let app = try await FunctionHostServer.makeApplication(configuration: configured, logger: logger)
            return try await app.test(setup) { client in
                try await body(API(client: client))
            }
        }
    }
}
