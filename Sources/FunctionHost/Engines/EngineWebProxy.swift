import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Passes an app's web request to its engine and its answer back, both streamed: the method,
/// path, query, headers and body as the client sent them (hop-by-hop headers dropped), with
/// `X-Forwarded-For`/`X-Real-IP`/`X-Forwarded-Host`/`X-Forwarded-Proto` set by the host (what a
/// client claims in them is replaced), as LeanCloud's gateway passed `*.leanapp.cn` traffic.
struct EngineWebProxy: Sendable {
    /// What each environment runs, its engine among it.
    let environments: Environments
    /// The largest request body passed on (the host's own `maxBodySize`).
    let maxBodySize: Int

    /// How long the engine has to begin its answer, and then between two parts of it.
    static let answerTime: TimeAmount = .seconds(60)

    /// Headers that belong to one connection, not to the request (RFC 9110 § 7.6.1), and the
    /// forwarding ones the host sets itself.
    static let dropped: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip", "forwarded",
    ]

    /// One client for the engines' web traffic: pooled, no redirects followed (the browser
    /// follows them), nothing decompressed, a refused connection failing at once.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: answerTime), decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The most web requests one client (its address) has at the engine at once: slow uploads
    /// from one client can't hold every connection to it.
    static let requestsPerClient = 16
    /// Each client's requests in flight.
    let inFlight = ClientShares(limit: requestsPerClient)

    func forward(_ request: Request, to engine: EngineApp, path: String, context: HostRequestContext) async throws -> Response {
        if let down = engine.downReason {
            throw HostError(status: .serviceUnavailable, code: 1, message: "The app is not available: \(down).")
        }
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > maxBodySize {
            throw HostError(status: .contentTooLarge, code: 1, message: "The request body is larger than \(maxBodySize) bytes.")
        }
        let client = SendLimits.client(ofAddress: context.clientAddress ?? "unknown")
        guard inFlight.admit(client) else {
            throw HostError(
                status: .tooManyRequests, code: 429, message: "Too many requests to the app at once from this client (\(Self.requestsPerClient)).")
        }
        engine.begin()
        do {
            let response = try await exchange(request, to: engine, path: path, length: length, context: context)
            // Released once the answer has been sent, or its sending failed.
            return Response(
                status: response.status, headers: response.headers,
                body: ResponseBody { [inFlight] writer in
                    defer {
                        inFlight.release(client)
                        engine.end()
                    }
                    try await response.body.write(writer)
                })
        } catch {
            inFlight.release(client)
            engine.end()
            throw error
        }
    }

    private func exchange(
        _ request: Request, to engine: EngineApp, path: String, length: Int?, context: HostRequestContext
    ) async throws -> Response {
        var outgoing = HTTPClientRequest(url: engine.baseURL + path + (request.uri.query.map { "?" + $0 } ?? ""))
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        // Headers the client named in `Connection` are for this hop only, as the hop-by-hop ones are.
        let named = Set(request.headers[values: .connection].flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        })
        for field in request.headers where !Self.dropped.contains(field.name.canonicalName) && !named.contains(field.name.canonicalName) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        // The app sees its own host name, and where the request came from as the host saw it.
        if let authority = request.head.authority { outgoing.headers.replaceOrAdd(name: "Host", value: authority) }
        if let client = context.clientAddress {
            outgoing.headers.add(name: "X-Forwarded-For", value: client)
            outgoing.headers.add(name: "X-Real-IP", value: client)
        }
        if let authority = request.head.authority { outgoing.headers.add(name: "X-Forwarded-Host", value: authority) }
        outgoing.headers.add(name: "X-Forwarded-Proto", value: request.head.scheme ?? "http")
        if request.method != .get, request.method != .head {
            let body = BoundedBody(base: request.body, limit: maxBodySize)
            outgoing.body = .stream(body, length: length.map { .known(Int64($0)) } ?? .unknown)
        }
        let response: HTTPClientResponse
        do {
            response = try await Self.client.execute(outgoing, timeout: Self.answerTime)
        } catch let error as BoundedBody.TooLarge {
            throw HostError(status: .contentTooLarge, code: 1, message: "The request body is larger than \(error.limit) bytes.")
        } catch let error as IOError {
            // Refused: the engine is between an exit and its restart.
            throw HostError(status: .serviceUnavailable, code: 1, message: "The app is not available: \(String(cString: strerror(error.errnoCode))).")
        } catch {
            throw HostError(status: .badGateway, code: 1, message: "The app did not answer: \(Self.reason(error)).")
        }
        var headers = HTTPFields()
        for (name, value) in response.headers where !Self.dropped.contains(name.lowercased()) || name.lowercased() == "x-real-ip" {
            guard let field = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: field, value: value))
        }
        return Response(
            status: HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
            headers: headers, body: ResponseBody(asyncSequence: response.body))
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .deadlineExceeded: return "it took too long"
            case .remoteConnectionClosed: return "it closed the connection"
            case .connectTimeout: return "it can't be reached"
            default: break
            }
        }
        return "it can't be reached"
    }
}

/// A request body passed on as it arrives, refused past `limit` bytes.
struct BoundedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Thrown once the body passes its limit.
    struct TooLarge: Error {
        let limit: Int
    }

    let base: RequestBody
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            seen += chunk.readableBytes
            if seen > limit { throw TooLarge(limit: limit) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }
}

