import AsyncHTTPClient
import DataAPI
import Foundation
import JSON
import NIOCore
import NIOHTTP1
import Synchronization

/// One environment's own engine: an app's LeanEngine process (Node with `leanengine`, Python
/// with `leancloud.Engine`, ...) that the host calls over HTTP for the functions and hooks it
/// defines, exactly as LeanCloud's platform called it (`leanengine-protocol.md` §§ 1–3).
///
/// The host learns what the engine defines from its `_ops/metadatas`; `EngineFunctions` and
/// `EngineHooks` register each name beside the in-process code, and their calls come here.
final class EngineApp: Sendable {
    /// The keys the engine was started with, and that it checks on every call.
    struct Keys: Sendable {
        var appId: String
        var appKey: String
        var masterKey: String
        var hookKey: String
    }

    /// The environment whose engine this is.
    let environment: EnvironmentName
    /// Where it listens (`http://127.0.0.1:PORT`), without a trailing slash.
    let baseURL: String
    let keys: Keys
    /// The most a single answer may hold (LeanEngine's own body limit).
    static let answerLimit = 20 * 1024 * 1024

    private struct State {
        /// Why calls are answered at once without trying: the supervised process is down.
        var down: String?
        /// The names its metadatas last listed.
        var names: [String] = []
    }

    private let state = Mutex(State())
    private let client: HTTPClient

    /// An engine at `baseURL`; `supervised` engines start down until their process answers.
    init(environment: EnvironmentName, baseURL: String, keys: Keys, startsDown: Bool = false) {
        self.environment = environment
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.keys = keys
        self.client = Self.sharedClient
        if startsDown { state.withLock { $0.down = "it is starting" } }
    }

    /// One client for every engine: connections to it are pooled across calls. A refused
    /// connection fails at once (an engine that is down answers 503 at once), redirects are
    /// not followed, nothing is decompressed. A `static let` is never deinitialised.
    private static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The names the engine's metadatas listed last (empty before it first answered).
    var names: [String] { state.withLock { $0.names } }

    /// Why the engine is down (its process exited, it is starting); nil while it serves.
    var downReason: String? { state.withLock { $0.down } }

    /// Marks the engine down (its process exited) or up again; while down, calls fail at once.
    func markDown(_ reason: String?) {
        state.withLock { $0.down = reason }
    }

    /// Asks the engine which functions and hooks it defines (`GET /1.1/functions/_ops/metadatas`
    /// with the master key), and remembers them. An engine that answers 404 defines none, as
    /// LeanCloud took it.
    func fetchNames(deadline: ContinuousClock.Instant) async throws(EngineError) -> [String] {
        var names: [String] = []
        do throws(EngineError) {
            let answer = try await send(
                "GET", "/1.1/functions/_ops/metadatas", headers: masterHeaders, body: nil, deadline: deadline, ignoringDown: true)
            guard case .array(let listed)? = answer["result"] else {
                throw .badAnswer("its metadatas have no result list")
            }
            names = listed.compactMap(\.stringValue)
        } catch .refused(status: 404, _, _) {
            names = []
        }
        let learned = names
        state.withLock {
            $0.names = learned
            $0.down = nil
        }
        return names
    }

    /// Calls `path` with a JSON body and answers the engine's 2xx JSON; any other answer is
    /// thrown as `EngineError.refused` with the engine's own code and message.
    func call(
        _ path: String, headers: [(String, String)], body: JSONValue, deadline: ContinuousClock.Instant
    ) async throws(EngineError) -> JSONValue {
        try await send("POST", path, headers: headers, body: body, deadline: deadline, ignoringDown: false)
    }

    /// The headers of a call made with the master key (metadatas, the master's calls).
    var masterHeaders: [(String, String)] {
        [("X-LC-Id", keys.appId), ("X-LC-Key", keys.masterKey + ",master"), ("X-LC-Prod", production)]
    }

    /// `X-LC-Prod` as the platform sent it to this environment's engine.
    var production: String { environment == .production ? "1" : "0" }

    private func send(
        _ method: String, _ path: String, headers: [(String, String)], body: JSONValue?,
        deadline: ContinuousClock.Instant, ignoringDown: Bool
    ) async throws(EngineError) -> JSONValue {
        if !ignoringDown, let down = state.withLock({ $0.down }) { throw .unreachable(down) }
        guard ContinuousClock.now < deadline else { throw .timedOut }
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.replaceOrAdd(name: "User-Agent", value: "FunctionHost")
        if let body {
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/json; charset=utf-8")
            request.body = .bytes(body.jsonBytes)
        }
        // The deadline races the whole exchange: the client's own stops at the response head.
        let outgoing = request
        let outcome = await withTaskGroup(of: Result<(Int, [UInt8]), EngineError>.self) { group in
            group.addTask { await Self.exchange(outgoing, with: self.client, deadline: deadline) }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return .failure(.timedOut)
            }
            let first = await group.next() ?? .failure(.timedOut)
            group.cancelAll()
            return first
        }
        let (status, bytes) = try outcome.get()
        let answer = try? JSONValue(parsing: bytes)
        guard (200..<300).contains(status) else {
            let code = answer?["code"]?.intValue.map { Int($0) } ?? 1
            let message = answer?["error"]?.stringValue ?? String(decoding: bytes.prefix(200), as: UTF8.self)
            throw .refused(status: status, code: code, message: message)
        }
        guard let answer else { throw .badAnswer("its answer to \(path) is not JSON") }
        return answer
    }

    private static func exchange(
        _ request: HTTPClientRequest, with client: HTTPClient, deadline: ContinuousClock.Instant
    ) async -> Result<(Int, [UInt8]), EngineError> {
        do {
            let response = try await client.execute(request, deadline: nioDeadline(deadline))
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > answerLimit {
                return .failure(.badAnswer("an answer of \(length) bytes"))
            }
            var bytes: [UInt8] = []
            for try await chunk in response.body {
                guard bytes.count + chunk.readableBytes <= answerLimit else {
                    return .failure(.badAnswer("an answer past \(answerLimit) bytes"))
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
            return .success((Int(response.status.code), bytes))
        } catch {
            if error is CancellationError { return .failure(.timedOut) }
            if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .cancelled {
                return .failure(.timedOut)
            }
            if let error = error as? IOError { return .failure(.unreachable(String(cString: strerror(error.errnoCode)))) }
            if let error = error as? HTTPClientError, error == .remoteConnectionClosed {
                return .failure(.unreachable("it closed the connection without an answer"))
            }
            return .failure(.unreachable(String(describing: error)))
        }
    }

    /// The deadline as NIO measures time (capped at a day, which no call comes near).
    private static func nioDeadline(_ deadline: ContinuousClock.Instant) -> NIODeadline {
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
        let nanoseconds = min(seconds, 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
        return .now() + .nanoseconds(max(0, nanoseconds))
    }
}
