import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Sends the master-key requests of the client subcommands to a FunctionHost server.
struct EngineClient: Sendable {
    /// The server's base address, without a trailing slash.
    let server: String

    /// Sent as `X-LC-Id`.
    let appId: String

    /// Sent as `X-LC-Key: <masterKey>,master`; every engine route needs the master key.
    let masterKey: String

    /// How long one request may take; a deploy uploads and checks all the code, so be generous.
    static let timeout: TimeAmount = .seconds(120)

    /// How long an engine app's deploy may take: the host runs its install step (10 minutes at
    /// most) and waits for it to start (2 minutes at most).
    static let deployTimeout: TimeAmount = .seconds(900)

    /// How long connecting may take before the command gives up.
    static let connectTimeout: TimeAmount = .seconds(10)

    /// The client settings for one command's single request.
    ///
    /// Not `HTTPClient.shared`: its settings suit a long-lived process, not a command someone waits
    /// on. It retries a refused connection with back-off for 90 seconds, where this fails at once
    /// with the reason; and it follows redirects, which would resend the master key to wherever the
    /// redirect points.
    static func configuration(timeout: TimeAmount) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: connectTimeout, read: timeout))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// The largest answer read; a version list with long messages stays far below it.
    static let answerLimit = 32 * 1024 * 1024

    /// Sends `body` (JSON bytes) to `path` and returns the parsed 2xx answer.
    ///
    /// A refusal becomes a ``ClientFailure`` with the server's `error` and `code`; a connection that
    /// fails becomes one naming the server.
    ///
    /// - Parameter timeout: how long the request may take (an engine app's deploy waits for its
    ///   install step and its start: `deployTimeout`).
    func send(
        _ method: HTTPMethod, _ path: String, body: Data? = nil, headers extra: [(String, String)] = [],
        timeout: TimeAmount = EngineClient.timeout
    ) async throws(ClientFailure) -> EngineAnswer {
        var request = HTTPClientRequest(url: server + path)
        request.method = method
        request.headers.add(name: "X-LC-Id", value: appId)
        request.headers.add(name: "X-LC-Key", value: "\(masterKey),master")
        request.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in extra {
            request.headers.add(name: name, value: value)
        }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let status: HTTPResponseStatus
        let data: Data
        do {
            (status, data) = try await HTTPClient.withHTTPClient(configuration: Self.configuration(timeout: timeout)) { client in
                let response = try await client.execute(request, timeout: timeout)
                // Copy out of the ByteBuffer by hand: its Data initialiser lives in NIOFoundationCompat,
                // one more dependency for a single call.
                let bytes = try await response.body.collect(upTo: Self.answerLimit)
                return (response.status, Data(bytes.readableBytesView))
            }
        } catch is NIOTooManyBytesError {
            throw ClientFailure(
                message: "the answer from \(server) is larger than \(Self.answerLimit / 1024 / 1024) MiB")
        } catch {
            throw ClientFailure(message: "cannot reach \(server): \(Self.reason(error))")
        }
        guard (200..<300).contains(status.code) else {
            throw Self.refusal(status: status, body: data)
        }
        guard let object = JSONText.object(data) else {
            throw ClientFailure(
                message: "unexpected answer from \(server) (HTTP \(status.code)): \(Self.excerpt(data))")
        }
        return EngineAnswer(body: data, object: object)
    }

    /// The failure for a non-2xx answer, in the LeanCloud `{"code": N, "error": "..."}` form when it is one.
    private static func refusal(status: HTTPResponseStatus, body: Data) -> ClientFailure {
        let object = JSONText.object(body)
        // A proxy in front of the server may answer with HTML or nothing; show what there is.
        let error = object?["error"] as? String ?? (body.isEmpty ? status.reasonPhrase : excerpt(body))
        if let code = object?["code"] as? Int {
            return ClientFailure(message: "\(error) (code \(code), HTTP \(status.code))")
        }
        return ClientFailure(message: "\(error) (HTTP \(status.code))")
    }

    /// The start of a body, on one line, for messages about answers that are not what was expected.
    private static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(200), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// A short human reason for a transport error, rather than the type dump `String(describing:)` gives.
    private static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connection timed out"
            case .deadlineExceeded: return "no answer within \(timeout.nanoseconds / 1_000_000_000) seconds"
            case .remoteConnectionClosed: return "the connection was closed before an answer"
            default: return error.shortDescription
            }
        }
        if let error = error as? IOError {
            // NIO's description wraps the system message in its own wording; the plain one reads better.
            return String(cString: strerror(error.errnoCode))
        }
        return String(describing: error)
    }
}
