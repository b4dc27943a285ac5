import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization

/// A stand-in for a LeanCloud app's file domain (`https://<files domain>/<key>`), on a loopback
/// port: it serves the bytes it was given under their keys, and can be told to fail some keys,
/// with a 503 or with a body cut short (the connection dropped mid-file), as a domain that
/// stops answering in the middle of an import does.
package struct FileDomainStandIn: Sendable {
    /// How a key is answered.
    package enum Answer: Sendable {
        /// Its bytes, whole.
        case whole
        /// 503.
        case unavailable
        /// A `Content-Length` of the whole and half the bytes, then the connection closes.
        case cut
        /// A body with no end (chunked, 64 KB at a time until the client goes).
        case endless
        /// 302 to this url.
        case redirect(String)
    }

    /// The port it listens on.
    package let port: Int
    /// Every path asked for, in order.
    package let log: RequestLog
    private let answers: Answers

    /// The url of `key`.
    package func url(_ key: String) -> String { "http://\(authority)/\(key)" }

    /// Its address and port, as `import --download-allow` names it.
    package var authority: String { "127.0.0.1:\(port)" }

    /// Sets how `key` is answered from now on.
    package func answer(_ key: String, with answer: Answer) { answers.state.withLock { $0[key] = answer } }

    /// Starts a server holding `files` (key → bytes), runs `body` against it, stops it.
    package static func run<Value: Sendable>(
        files: [String: [UInt8]], _ body: @Sendable (FileDomainStandIn) async throws -> Value
    ) async throws -> Value {
        let log = RequestLog()
        let answers = Answers()
        let router = Router()
        router.get("/:key") { _, context in
            let key = try context.parameters.require("key")
            log.record("/" + key)
            guard let bytes = files[key] else { return Response(status: .notFound) }
            return Self.response(bytes, answers.state.withLock { $0[key] } ?? .whole)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            let server = FileDomainStandIn(port: client.port!, log: log, answers: answers)
            return try await body(server)
        }
    }

    private init(port: Int, log: RequestLog, answers: Answers) {
        self.port = port
        self.log = log
        self.answers = answers
    }

    private static func response(_ bytes: [UInt8], _ answer: Answer) -> Response {
        switch answer {
        case .whole:
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        case .unavailable:
            return Response(status: .serviceUnavailable)
        case .cut:
            let body = ResponseBody(contentLength: bytes.count) { writer in
                try await writer.write(ByteBuffer(bytes: bytes.prefix(bytes.count / 2)))
                throw CancellationError()
            }
            return Response(status: .ok, body: body)
        case .endless:
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
            return Response(status: .ok, body: ResponseBody { writer in
                while true { try await writer.write(chunk) }
            })
        case .redirect(let url):
            return Response(status: .found, headers: [.location: url])
        }
    }
}

/// How each key is answered, shared between the handler and the test.
private final class Answers: Sendable {
    let state = Mutex<[String: FileDomainStandIn.Answer]>([:])
}
