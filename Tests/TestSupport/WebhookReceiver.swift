import DataAPI
import HTTPTypes
import Hummingbird
import HummingbirdTesting
package import JSON
package import Synchronization

/// A loopback server standing in for an operator's message service: it keeps every JSON body
/// POSTed to it, and answers 500 to a message whose text asks to fail.
package struct WebhookReceiver: Sendable {
    /// The port it listens on.
    package let port: Int
    private let received: Received

    package final class Received: Sendable {
        package let messages = Mutex<[JSONValue]>([])
        package let hookKeys = Mutex<[String]>([])
    }

    /// `http://127.0.0.1:<port><path>`.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The messages accepted so far.
    package var messages: [JSONValue] { received.messages.withLock { $0 } }
    /// The `X-LC-Hook-Key` of each accepted message.
    package var hookKeys: [String] { received.hookKeys.withLock { $0 } }

    /// Starts a receiver, runs `body` against it, stops it.
    package static func run<Value: Sendable>(_ body: @Sendable (WebhookReceiver) async throws -> Value) async throws -> Value {
        let received = Received()
        let router = Router()
        router.post("messages") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let message = try JSONValue(parsing: buffer.readableBytesView)
            if message["text"]?.stringValue?.contains("to fail") == true { return Response(status: .internalServerError) }
            received.messages.withLock { $0.append(message) }
            received.hookKeys.withLock { $0.append(request.headers[HTTPField.Name("X-LC-Hook-Key")!] ?? "") }
            return Response(status: .ok)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            try await body(WebhookReceiver(port: client.port!, received: received))
        }
    }
}
