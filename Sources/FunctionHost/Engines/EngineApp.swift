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
        /// The names its metadatas last listed; nil before it ever answered.
        var names: [String]?
        /// Calls and web requests at the engine now: a replaced engine is stopped once none are.
        var active = 0
    }

    private let state = Mutex(State())
    /// Where the names it listed last are kept, so a restarted host runs its hooks (refusing
    /// writes while it is down) before it answers again.
    private let namesFile: String?

    /// The most function calls one client (its address) has in flight at once: the rest of the
    /// connections stay for other clients and for the hooks, which have connections of their own.
    static let callsPerClient = 16
    /// Each client's function calls in flight.
    let functionCalls = ClientShares(limit: callsPerClient)

    /// An engine at `baseURL`; `startsDown` (a process the host starts) until it answers. The
    /// names it listed before are read from `namesFile`.
    init(environment: EnvironmentName, baseURL: String, keys: Keys, startsDown: Bool = false, namesFile: String? = nil) {
        self.environment = environment
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.keys = keys
        self.namesFile = namesFile
        let stored = namesFile.flatMap { FileManager.default.contents(atPath: $0) }.flatMap { try? JSONValue(parsing: Array($0)) }
        state.withLock { state in
            if startsDown { state.down = "it is starting" }
            state.names = stored?.arrayValue?.compactMap(\.stringValue)
        }
    }

    /// The clients functions and hooks call through: each its own pool, so functions a client
    /// keeps busy never leave a write's hook waiting for a connection. A refused connection
    /// fails at once (an engine that is down answers 503 at once), redirects are not followed,
    /// nothing is decompressed. A `static let` is never deinitialised.
    private static let functionClient = makeClient()
    private static let hookClient = makeClient()

    private static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// The names the engine's metadatas listed last; nil before it ever answered (on this host's
    /// data directory).
    var names: [String]? { state.withLock { $0.names } }

    /// Why the engine is down (its process exited, it is starting); nil while it serves.
    var downReason: String? { state.withLock { $0.down } }

    /// Counts a call or web request at the engine until `end`: a replaced engine drains them.
    func begin() {
        state.withLock { $0.active += 1 }
    }

    /// Ends what `begin` counted.
    func end() {
        state.withLock { $0.active -= 1 }
    }

    /// Whether nothing is at the engine now.
    var isIdle: Bool { state.withLock { $0.active == 0 } }

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
        let changed = state.withLock { state in
            defer {
                state.names = learned
                state.down = nil
            }
            return state.names != learned
        }
        if changed, let namesFile {
            // Best effort: without it, a restarted host holds writes until the engine answers.
            try? FileManager.default.createDirectory(
                atPath: (namesFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try? Data(JSONValue.array(learned.map(JSONValue.string)).jsonBytes).write(to: URL(fileURLWithPath: namesFile), options: .atomic)
        }
        return names
    }

    /// Calls `path` with a JSON body and answers the engine's 2xx JSON; any other answer is
    /// thrown as `EngineError.refused` with the engine's own code and message.
    func call(
        _ path: String, headers: [(String, String)], body: JSONValue, deadline: ContinuousClock.Instant, isHook: Bool = false
    ) async throws(EngineError) -> JSONValue {
        try await send("POST", path, headers: headers, body: body, deadline: deadline, ignoringDown: false, isHook: isHook)
    }

    /// The headers of a call made with the master key (metadatas, the master's calls).
    var masterHeaders: [(String, String)] {
        [("X-LC-Id", keys.appId), ("X-LC-Key", keys.masterKey + ",master"), ("X-LC-Prod", production)]
    }

    /// `X-LC-Prod` as the platform sent it to this environment's engine.
    var production: String { environment == .production ? "1" : "0" }

    private func send(
        _ method: String, _ path: String, headers: [(String, String)], body: JSONValue?,
        deadline: ContinuousClock.Instant, ignoringDown: Bool, isHook: Bool = true
    ) async throws(EngineError) -> JSONValue {
        if !ignoringDown, let down = state.withLock({ $0.down }) { throw .unreachable(down) }
        guard ContinuousClock.now < deadline else { throw .timedOut }
        begin()
        defer { end() }
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
        let client = isHook ? Self.hookClient : Self.functionClient
        let outcome = await withTaskGroup(of: Result<(Int, [UInt8]), EngineError>.self) { group in
            group.addTask { await Self.exchange(outgoing, with: client, deadline: deadline) }
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
        // LeanEngine answers its calls itself; a redirect is no answer.
        if (300..<400).contains(status) { throw .badAnswer("a redirect (\(status)) to \(path)") }
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
        let outcome = await exchangeOnce(request, with: client, deadline: deadline)
        // A pooled connection the engine closed while idle (it restarted, or an engine run by
        // someone else closes idle ones): a request never written goes once more, on a new
        // connection; so does a read (the metadatas) whose connection was reset, which may have
        // reached the engine, but changes nothing there.
        if case .failure(.unreachable(let reason)) = outcome,
            reason == Self.closedWhileIdle || (request.method == .GET && reason == Self.reset)
        {
            return await exchangeOnce(request, with: client, deadline: deadline)
        }
        return outcome
    }

    /// Why a request found its pooled connection closed before it was written.
    private static let closedWhileIdle = "its connection was closed before the request was sent"
    /// A connection the engine reset.
    private static let reset = String(cString: strerror(ECONNRESET))

    private static func exchangeOnce(
        _ request: HTTPClientRequest, with client: HTTPClient, deadline: ContinuousClock.Instant
    ) async -> Result<(Int, [UInt8]), EngineError> {
        do {
            let response = try await client.execute(request, deadline: OutboundHTTP.nioDeadline(deadline))
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
            if let error = error as? HTTPClientError, error == .connectTimeout || error == .getConnectionFromPoolTimeout {
                return .failure(.unreachable("no connection to it could be made in time"))
            }
            if let error = error as? ChannelError {
                return .failure(.unreachable(error == .ioOnClosedChannel ? closedWhileIdle : "its connection failed"))
            }
            // Anything else is an answer HTTP can't read (a header past NIO's limits, ...): its
            // text may carry what was sent, so only its kind is told.
            return .failure(.badAnswer("an answer that isn't readable HTTP"))
        }
    }
}
