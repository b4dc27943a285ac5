package import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Outbound HTTP for cloud code (`fetch`, `AV.Cloud.httpRequest`): each request is checked
/// against its environment's `OutboundPolicy` (every redirect hop again), bounded by the
/// caller's deadline, and its response body by the policy's size limit.
public struct OutboundHTTP: Sendable {
    /// How many redirects one request follows.
    public static let maxRedirects = 5

    /// The client requests go through.
    let client: HTTPClient

    /// Sends requests through the process-wide client.
    public init() {
        client = Self.sharedClient
    }

    /// Sends requests through `client`, whose settings must be the shared one's (`settings`):
    /// redirects off, nothing decompressed. For a command with timeouts of its own (imports).
    package init(client: HTTPClient) {
        self.client = client
    }

    /// The settings requests need from their client: redirects are followed here, each hop
    /// checked, and the size limits count the bytes that arrive.
    package static var settings: HTTPClient.Configuration {
        HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
    }

    /// One client for the whole process, so connections are pooled across calls and environments
    /// (the policy is checked per request, before a pooled connection is picked). Redirects are
    /// off because they are followed here, each hop checked; no proxy from the environment is
    /// used; nothing is decompressed, so the size limit counts the bytes that arrive. A `static
    /// let` is never deinitialised, so the client never needs a shutdown.
    private static let sharedClient: HTTPClient = {
        var configuration = settings
        // A refused connection fails at once rather than being retried until the connect
        // timeout (10 s): whether to try again is the script's decision.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Sends a request allowed by `policy`, follows its redirects, and reads the whole response,
    /// all before `deadline`.
    public func send(
        _ request: OutboundRequest, policy: OutboundPolicy, deadline: ContinuousClock.Instant
    ) async throws(OutboundHTTPError) -> OutboundResponse {
        let request = try request.checked()
        guard ContinuousClock.now < deadline else { throw .timedOut }
        do {
            return try await Self.racing(deadline) { try await exchange(request, policy: policy, deadline: deadline) }
        } catch {
            // The exchange throws nothing else.
            throw error as? OutboundHTTPError ?? .timedOut
        }
    }

    /// `work`'s outcome, or `timedOut` once `deadline` passes (`work` then cancelled). The
    /// client's own deadline stops at the response head, so this one races the whole exchange
    /// (lookup, connection, redirects, body): a server that drips its bytes can't outlast it.
    static func racing<Value: Sendable>(
        _ deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw OutboundHTTPError.timedOut }
            return value
        }
    }

    /// The exchange itself: the redirects followed, then the whole body read.
    private func exchange(
        _ request: OutboundRequest, policy: OutboundPolicy, deadline: ContinuousClock.Instant
    ) async throws(OutboundHTTPError) -> OutboundResponse {
        let (response, target) = try await head(request, policy: policy, deadline: deadline)
        let body = try await read(response, limit: policy.maxResponseSize, authority: target.authority)
        return OutboundResponse(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: body, url: target.url)
    }

    /// The last response's head, and where it came from: one hop per redirect, each checked
    /// against the policy. Its body is left to the caller to read.
    func head(
        _ request: OutboundRequest, policy: OutboundPolicy, deadline: ContinuousClock.Instant
    ) async throws(OutboundHTTPError) -> (HTTPClientResponse, OutboundTarget) {
        var request = request
        var redirects = 0
        while true {
            let target = try OutboundTarget(url: request.url)
            let address = try await policy.admit(target)
            let response = try await execute(request, to: target, at: address, deadline: deadline)
            let status = Int(response.status.code)
            if OutboundRequest.redirectStatuses.contains(status), let location = response.headers.first(name: "location") {
                guard redirects < Self.maxRedirects else { throw .tooManyRedirects(Self.maxRedirects) }
                redirects += 1
                request = try request.following(status: status, location: location, from: target)
                // A redirect's body is of no use; a little is read so the connection can be reused.
                _ = try? await response.body.collect(upTo: 64 * 1024)
                continue
            }
            return (response, target)
        }
    }

    /// Sends one hop and waits for the response head.
    private func execute(
        _ request: OutboundRequest, to target: OutboundTarget, at address: IPAddress, deadline: ContinuousClock.Instant
    ) async throws(OutboundHTTPError) -> HTTPClientResponse {
        // Plain http connects to the checked address itself, so a second DNS lookup can't swap in
        // another one (DNS rebinding). https keeps the name, which TLS needs for SNI and for the
        // certificate check, and an internal server can't present a valid certificate for it.
        var outgoing = HTTPClientRequest(url: target.scheme == .http ? target.url(connectingTo: address) : target.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        if target.scheme == .http {
            outgoing.headers.replaceOrAdd(name: "Host", value: target.authority)
        }
        if !outgoing.headers.contains(name: "User-Agent") {
            // Some APIs refuse requests without one.
            outgoing.headers.add(name: "User-Agent", value: "FunctionHost")
        }
        if let body = request.body {
            outgoing.body = .bytes(body)
        }
        do {
            return try await client.execute(outgoing, deadline: Self.nioDeadline(deadline))
        } catch {
            throw Self.failure(error, authority: target.authority)
        }
    }

    /// Reads the body, refusing it as soon as it passes `limit`: a too-large body is never held.
    private func read(
        _ response: HTTPClientResponse, limit: Int, authority: String
    ) async throws(OutboundHTTPError) -> [UInt8] {
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > limit {
            throw .responseTooLarge(limit: limit)
        }
        var bytes: [UInt8] = []
        var tooLarge = false
        do {
            for try await chunk in response.body {
                guard bytes.count + chunk.readableBytes <= limit else {
                    // Leaving the loop drops the stream, which closes the connection.
                    tooLarge = true
                    break
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
        } catch {
            throw Self.failure(error, authority: authority)
        }
        if tooLarge { throw .responseTooLarge(limit: limit) }
        return bytes
    }

    /// The script's view of an error from the client.
    static func failure(_ error: any Error, authority: String) -> OutboundHTTPError {
        if error is CancellationError { return .timedOut }
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .cancelled {
            return .timedOut
        }
        return .connectionFailed(authority, reason(for: error))
    }

    /// A short reason for a transport error: the system's words for an errno ("Connection
    /// refused"), plain words for the client's own errors, the error's description otherwise.
    private static func reason(for error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        switch error as? HTTPClientError {
        case .connectTimeout?: return "the connection timed out"
        case .remoteConnectionClosed?: return "the server closed the connection"
        case .tlsHandshakeTimeout?: return "the TLS handshake timed out"
        default: return String(describing: error)
        }
    }

    /// The deadline as NIO measures time (capped at a year, which no call comes near); the
    /// engines' calls (`EngineApp`) use it too.
    static func nioDeadline(_ deadline: ContinuousClock.Instant) -> NIODeadline {
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
        let nanoseconds = min(seconds, 365 * 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
        return .now() + .nanoseconds(max(0, nanoseconds))
    }
}
