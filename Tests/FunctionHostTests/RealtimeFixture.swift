import Foundation
import HTTPTypes
import HummingbirdWSClient
import LiveQuery
import Logging
import NIOCore
import NIOWebSocket
import RealtimeProtocol
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// The subscriptions' side as the realtime tests see it: a real `LiveQueryConnections` that
/// records each attach and detach, hands out the attached sinks so a test can push events
/// through them, and lets a test wait for an attach or detach as it happens.
final class RecordingConnections: LiveQueryConnections {
    /// An attach or a detach, by subscription id.
    enum Change: Sendable, Equatable {
        case attached(String)
        case detached(String)
    }

    private let sinks = Mutex<[String: any LiveQuerySink]>([:])
    private let log = Mutex<[Change]>([])
    private let stream: AsyncStream<Change>
    private let continuation: AsyncStream<Change>.Continuation
    /// Whether attaches are taken (false: every login is refused as a connection too many).
    let admits: Bool

    init(admits: Bool = true) {
        (stream, continuation) = AsyncStream.makeStream(of: Change.self)
        self.admits = admits
    }

    func attach(_ sink: any LiveQuerySink, subscriptionID: String) async -> Bool {
        guard admits else { return false }
        sinks.withLock { $0[subscriptionID] = sink }
        record(.attached(subscriptionID))
        return true
    }

    func detach(_ sink: any LiveQuerySink, subscriptionID: String) async {
        sinks.withLock { sinks in
            if let held = sinks[subscriptionID], held === sink { sinks[subscriptionID] = nil }
        }
        record(.detached(subscriptionID))
    }

    private func record(_ change: Change) {
        log.withLock { $0.append(change) }
        continuation.yield(change)
    }

    /// Every change so far.
    var changes: [Change] { log.withLock { $0 } }

    /// The sink attached for the id.
    func sink(_ subscriptionID: String) -> (any LiveQuerySink)? { sinks.withLock { $0[subscriptionID] } }

    /// Waits until `change` has happened (it may have already).
    func wait(for change: Change) async {
        if changes.contains(change) { return }
        for await next in stream where next == change { return }
    }
}

/// A realtime test: a server on a real port whose realtime endpoint logs in to `connections`,
/// and LeanCloud's commands on real WebSocket connections to it.
enum Realtime {
    static let logger = Logger(label: "realtime-test")

    /// Runs `body` against a server on its own data and port.
    static func serve(
        connections: RecordingConnections = RecordingConnections(), limits: RealtimeLimits = RealtimeLimits(),
        configure: @escaping (inout HostConfiguration) -> Void = { _ in },
        _ body: @Sendable (API, RecordingConnections) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, transport: .socket,
            configure: {
                $0.liveQueryConnections = connections
                $0.realtimeLimits = limits
                configure(&$0)
            }
        ) { api in try await body(api, connections) }
    }

    /// Opens a WebSocket to the endpoint offering `subProtocol`, runs `body` on it and answers
    /// the close frame the server sent (nil when it sent none). Bounded: a server that never
    /// answers fails the test after 30 s instead of hanging it.
    @discardableResult
    static func connect(
        port: Int, subProtocol: String = "lc.protobuf2.3",
        _ body: @escaping @Sendable (inout Session) async throws -> Void
    ) async throws -> WebSocketCloseFrame? {
        let headers: HTTPFields = [.secWebSocketProtocol: subProtocol]
        return try await bounded {
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/realtime",
                configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers), logger: logger
            ) { inbound, outbound, _ in
                var session = Session(messages: inbound.messages(maxSize: 1 << 22).makeAsyncIterator(), outbound: outbound)
                try await body(&session)
            }
        }
    }

    /// `work`, failing after `seconds` if it hasn't finished: the ceiling of a wait, never a
    /// pace. A `work` that ignores cancellation is left behind rather than waited for, so a
    /// regression fails the test instead of hanging the run.
    static func bounded<Value: Sendable>(seconds: Int = 30, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let outcome = Outcome<Value>()
        let worker = Task {
            do {
                outcome.finish(.success(try await work()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        let timer = Task {
            try await Task.sleep(for: .seconds(seconds))
            outcome.finish(.failure(TimedOut(seconds: seconds)))
        }
        let result = await outcome.value()
        timer.cancel()
        if case .failure(let error as TimedOut) = result {
            worker.cancel()
            Issue.record("timed out after \(error.seconds) s")
        }
        return try result.get()
    }

    /// A wait that ran past its ceiling.
    struct TimedOut: Error {
        var seconds: Int
    }

    /// The first of two racing results.
    final class Outcome<Value: Sendable>: Sendable {
        private let state = Mutex<(result: Result<Value, any Error>?, waiter: CheckedContinuation<Result<Value, any Error>, Never>?)>((nil, nil))

        /// Keeps the first result and wakes the waiter.
        func finish(_ result: Result<Value, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<Result<Value, any Error>, Never>? in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: result)
        }

        /// The first result, once there is one.
        func value() async -> Result<Value, any Error> {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// One client connection's two directions.
    struct Session {
        var messages: WebSocketInboundMessageStream.AsyncIterator
        let outbound: WebSocketOutboundWriter

        /// Sends a command as a binary protobuf frame.
        func send(_ command: GenericCommand) async throws {
            try await outbound.write(.binary(ByteBuffer(bytes: try command.frameBytes())))
        }

        /// Sends a text frame.
        func send(text: String) async throws {
            try await outbound.write(.text(text))
        }

        /// The next message; nil once the server closed.
        mutating func next() async throws -> WebSocketMessage? {
            try await messages.next()
        }

        /// The next binary frame, read as a command.
        mutating func command() async throws -> GenericCommand {
            guard case .binary(let buffer) = try await next() else { throw Unexpected() }
            return try GenericCommand(frame: Array(buffer.readableBytesView))
        }

        /// The next text frame.
        mutating func text() async throws -> String {
            guard case .text(let text) = try await next() else { throw Unexpected() }
            return text
        }

        /// Reads until the server closes.
        mutating func drain() async throws {
            while try await next() != nil {}
        }
    }

    /// A frame of the wrong kind arrived.
    struct Unexpected: Error {}

    /// A command as LeanCloud's SDKs build it.
    static func command(
        _ type: CommandType, i: Int32? = nil, appID: String? = "app", installationID: String? = nil, service: Int32? = 1
    ) -> GenericCommand {
        var command = GenericCommand()
        command.cmd = type
        if let i { command.i = i }
        if let appID { command.appID = appID }
        if let installationID { command.installationID = installationID }
        if let service { command.service = service }
        return command
    }

    /// An event as the subscriptions would hand it over.
    static func event(_ op: LiveEvent.Operation, queryID: String = "q1", objectID: String = "o1", padding: Int = 0) -> LiveEvent {
        let object = #"{"className":"Todo","objectId":"\#(objectID)","title":"\#(String(repeating: "x", count: padding))"}"#
        return LiveEvent(
            queryID: queryID, operation: op,
            json: #"{"op":"\#(op.rawValue)","query_id":"\#(queryID)","object":\#(object),"updatedKeys":[]}"#)
    }
}
