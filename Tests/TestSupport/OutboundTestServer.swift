import DataAPI
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import NIOCore
import Synchronization

/// A plain HTTP server on 127.0.0.1, run for one outbound-HTTP test, with routes that echo,
/// answer large bodies, redirect, and hang until the test lets them go.
package struct OutboundTestServer: Sendable {
    /// The port it listens on.
    package let port: Int
    /// Every request path it received, in order.
    package let log: RequestLog
    /// What `/slow` and `/slow-body` wait for; opened when the test ends.
    package let gate: Gate
    /// Opened when a request reaches `/slow`: the caller is then waiting on this server.
    package let arrived: Gate

    /// `http://127.0.0.1:<port><path>`.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The paths received so far.
    package var requests: [String] { log.paths }

    /// Starts a server, runs `body` against it, opens the gate (so hanging handlers return and
    /// the server can drain), and stops it.
    package static func run<Value: Sendable>(_ body: @Sendable (OutboundTestServer) async throws -> Value) async throws -> Value {
        let log = RequestLog()
        let gate = Gate()
        let arrived = Gate()
        let app = Application(
            router: makeRouter(log: log, gate: gate, arrived: arrived),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            let server = OutboundTestServer(port: client.port!, log: log, gate: gate, arrived: arrived)
            do {
                let value = try await body(server)
                gate.open()
                return value
            } catch {
                gate.open()
                throw error
            }
        }
    }

    /// The routes.
    private static func makeRouter(log: RequestLog, gate: Gate, arrived: Gate) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: Recorder(log: log))
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            router.on("echo", method: method) { request, _ in try await echo(request) }
        }
        // 2 MB of "x", with a Content-Length, and the same streamed in chunks without one.
        router.get("big") { _, _ in
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: "x"), count: 2 << 20)))
        }
        router.get("big-chunked") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    for _ in 0..<32 {
                        try await writer.write(ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 << 10))
                    }
                    try await writer.finish(nil)
                })
        }
        // `/redirect?to=<location>&status=<code>` (302 unless told), for GET and POST.
        for method in [HTTPRequest.Method.get, .post] {
            router.on("redirect", method: method) { request, _ in
                let status = request.uri.queryParameters.get("status", as: Int.self) ?? 302
                var headers = HTTPFields()
                headers[.location] = request.uri.queryParameters.get("to") ?? "/echo"
                return Response(status: .init(code: status), headers: headers)
            }
        }
        router.get("loop") { _, _ in
            Response(status: .found, headers: [.location: "/loop"])
        }
        // Hang until the test ends: what a deadline must cut, before the head or inside the body.
        router.get("slow") { _, _ in
            arrived.open()
            await gate.wait()
            return "late"
        }
        router.get("slow-body") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "partial"))
                    await gate.wait()
                    try await writer.finish(nil)
                })
        }
        return router
    }

    /// `{method, uri, headers: {lower-case name: value}, body}` of the request.
    private static func echo(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        var headers: [String: JSONValue] = [:]
        for field in request.headers {
            headers[field.name.canonicalName] = .string(field.value)
        }
        if let authority = request.head.authority { headers["host"] = .string(authority) }
        let json: JSONValue = [
            "method": .string(request.method.rawValue), "uri": .string(request.uri.description),
            "headers": .object(headers), "body": .string(String(buffer: body)),
        ]
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: json.jsonString)))
    }
}

/// Records every request's path before routing.
private struct Recorder: RouterMiddleware {
    /// Where paths go.
    package let log: RequestLog

    package func handle(
        _ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        log.record(request.uri.path)
        return try await next(request, context)
    }
}

/// The paths a server received, shared between its handlers and the test.
package final class RequestLog: Sendable {
    private let storage = Mutex<[String]>([])

    /// Adds a path.
    package func record(_ path: String) { storage.withLock { $0.append(path) } }

    /// The paths so far.
    package var paths: [String] { storage.withLock { $0 } }
}

/// A one-way gate: `wait()` suspends until `open()`, and returns at once afterwards.
package final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Suspends until the gate is open.
    package func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Opens the gate, releasing every waiter.
    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
