import AsyncHTTPClient
import DataAPI
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// The built executable under SIGTERM: a call in flight finishes, then the process exits cleanly.
@Suite struct ShutdownTests {
    @Test func sigtermLetsTheCallInFlightFinishThenExits() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await OutboundTestServer.run { outbound in
            // A call that stays in flight until the test lets the server it waits on answer.
            try """
                AV.Cloud.define('slow', async function () {
                  var response = await fetch('\(outbound.url("/slow"))');
                  return await response.text();
                });
                """.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
            let port = Ports.free()
            let process = Process()
            process.executableURL = CLI.executable
            var arguments = [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", directory, "--functions", directory,
                "--allow-http", "127.0.0.1:\(outbound.port)",
            ]
            arguments += ImportCommandTests.target(directory).dropFirst(2)
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["LEANCLOUD_APP_ID"] = "app"
            environment["LEANCLOUD_APP_KEY"] = "key"
            environment["LEANCLOUD_APP_MASTER_KEY"] = "master"
            environment["LOG_LEVEL"] = "error"
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            let exited = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
            try process.run()

            // The shared client retries the connection until the server listens: it listens once
            // its storage is open and its cloud code loaded, so the first call finds the function.
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/1.1/functions/slow")
            request.method = .POST
            request.headers.add(name: "X-LC-Id", value: "app")
            request.headers.add(name: "X-LC-Key", value: "key")
            async let answer = HTTPClient.shared.execute(request, timeout: .seconds(60))
            await outbound.arrived.wait()
            kill(process.processIdentifier, SIGTERM)
            outbound.gate.open()
            let response = try await answer
            #expect(response.status == .ok)
            #expect(String(buffer: try await response.body.collect(upTo: 1 << 16)) == #"{"result":"late"}"#)
            var statuses = exited.stream.makeAsyncIterator()
            #expect(await statuses.next() == 0)
        }
    }
}
