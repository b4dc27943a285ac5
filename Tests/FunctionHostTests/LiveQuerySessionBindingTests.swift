import Foundation
import HTTPTypes
import HummingbirdWSClient
import JSON
import LiveQuery
import NIOCore
import NIOWebSocket
import RealtimeProtocol
import TestSupport
import Testing

@testable import FunctionHost

/// Attack, end to end over real sockets: who receives a subscription's events. A realtime login
/// with the subscription id from another client address receives none of them; the session the
/// subscription was made with ending (`refreshSessionToken`) stops its events before the next
/// write is delivered. A third client's subscription witnesses that each write was delivered.
@Suite struct LiveQuerySessionBindingTests {
    static let victim = "203.0.113.1"
    static let attacker = "198.51.100.7"
    static let witness = "192.0.2.5"

    /// A realtime connection from `address` (as the trusted proxy in front says), logged in
    /// with `id`.
    static func open(
        port: Int, from address: String, id: String, _ body: @escaping @Sendable (Held) async throws -> Void
    ) async throws {
        let headers: HTTPFields = [.secWebSocketProtocol: "lc.protobuf2.3", HTTPField.Name("X-Forwarded-For")!: address]
        try await Realtime.bounded {
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/realtime", configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers),
                logger: Realtime.logger
            ) { inbound, outbound, _ in
                let held = Held(Realtime.Session(messages: inbound.messages(maxSize: 1 << 22).makeAsyncIterator(), outbound: outbound))
                try await held.session.send(Realtime.command(.login, i: 1, installationID: id))
                #expect(try await held.session.command().cmd == .loggedin)
                try await body(held)
                try await held.session.outbound.close(.normalClosure, reason: nil)
                try await held.session.drain()
            }
        }
    }

    /// One connection's session, handed to the connections opened inside it. Only one task uses
    /// it at a time: a nested connection's body runs while the outer body waits for it.
    final class Held: @unchecked Sendable {
        var session: Realtime.Session

        init(_ session: Realtime.Session) {
            self.session = session
        }
    }

    /// Reads pushes until one carries the Todo numbered `n`.
    static func awaitTodo(_ n: Int, on held: Held) async throws {
        while true {
            let push = try await held.session.command()
            let numbers = try push.dataMessage.msg.map { try JSONValue(parsing: $0.data)["object"]?["n"]?.intValue }
            if numbers.contains(Int64(n)) { return }
        }
    }

    /// The Todo numbers pushed before the answer to an echo sent now.
    static func pushedBeforeEcho(on held: Held, i: Int32) async throws -> [Int64] {
        try await held.session.send(Realtime.command(.echo, i: i, appID: nil, service: nil))
        var numbers: [Int64] = []
        while true {
            let next = try await held.session.command()
            if next.cmd == .echo, next.i == i { return numbers }
            numbers += try next.dataMessage.msg.compactMap { try JSONValue(parsing: $0.data)["object"]?["n"]?.intValue }
        }
    }

    static func headers(from address: String, session: String? = nil) -> HTTPFields {
        var pairs = [("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-Forwarded-For", address)]
        if let session { pairs.append(("X-LC-Session", session)) }
        return Headers.make(pairs)
    }

    static func subscribe(_ api: API, id: String, headers: HTTPFields) async throws {
        let answer = try await api.post("/1.1/LiveQuery/subscribe", headers: headers, ["id": .string(id), "query": ["className": "Todo", "where": [:]]])
        _ = try #require(answer["query_id"]?.stringValue, "\(answer)")
    }

    @Test func anotherAddressReceivesNothingAndAnEndedSessionStopsAtOnce() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, transport: .socket, configure: { $0.trustedProxies = TrustedProxies(list: "127.0.0.1")! }
        ) { api in
            let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let adaId = try #require(ada.objectId)
            let token = try #require(ada["sessionToken"]?.stringValue)
            let port = api.port
            try await Self.open(port: port, from: Self.victim, id: "livequery-ada") { victim in
                try await Self.subscribe(api, id: "livequery-ada", headers: Self.headers(from: Self.victim, session: token))
                try await Self.open(port: port, from: Self.attacker, id: "livequery-ada") { attacker in
                    try await Self.open(port: port, from: Self.witness, id: "livequery-witness") { witness in
                        try await Self.subscribe(api, id: "livequery-witness", headers: Self.headers(from: Self.witness))
                        _ = try await api.create("Todo", ["n": 1])
                        _ = try await api.create("Todo", ["n": 2])
                        try await Self.awaitTodo(1, on: victim)
                        try await Self.awaitTodo(2, on: witness)
                        // Todo 1's delivery is over: the attacker, with ada's id, got none of it.
                        #expect(try await Self.pushedBeforeEcho(on: attacker, i: 2) == [])
                        // Ada's session ends: her subscription hears nothing more.
                        let refreshed = try await api.put(
                            "/1.1/users/\(adaId)/refreshSessionToken", headers: Self.headers(from: Self.victim, session: token), [:])
                        #expect(refreshed["sessionToken"]?.stringValue != token, "\(refreshed)")
                        _ = try await api.create("Todo", ["n": 3])
                        _ = try await api.create("Todo", ["n": 4])
                        try await Self.awaitTodo(4, on: witness)
                        // Todo 3's delivery is over: ada's subscription heard neither it nor later ones.
                        let late = try await Self.pushedBeforeEcho(on: victim, i: 3)
                        #expect(!late.contains(3) && !late.contains(4), "\(late)")
                    }
                }
            }
        }
    }
}
