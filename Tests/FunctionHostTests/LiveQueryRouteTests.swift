import DataAPI
import Foundation
import HTTPTypes
import Hooks
import Hummingbird
import HummingbirdTesting
import JSON
import LiveQuery
import LiveQueryPostgres
import Logging
import TestSupport
import Testing

@testable import FunctionHost

/// A server's router and services over fresh data, its LiveQuery hub delivering while the test
/// runs: the test subscribes through the REST routes and attaches a recording connection to the
/// hub, as the realtime endpoint does at login.
enum LiveQueryServer {
    /// - Parameter database: the PostgreSQL schema to share with other servers (hosts); nil for
    ///   the data directory's own database.
    static func run(
        functions: FunctionRegistry = FunctionRegistry(), scripts: [String: String] = [:], database: PostgresLocation? = nil,
        _ body: @Sendable (API, LiveQueryHub) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, text) in scripts { try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        var configuration = HostConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory, functionsDirectory: directory, keys: TestServer.keys,
            functions: functions)
        configuration.database = database ?? TestDatabase.location(for: directory)
        let logger = Logger(label: "livequery")
        let databases = try await Databases.open(configuration, logger: logger)
        do {
            let services = try await FunctionHostServer.makeServices(configuration: configuration, databases: databases, logger: logger)
            let app = Application(router: FunctionHostServer.makeRouter(configuration: configuration, services: services))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await services.liveQuery.run() }
                // On PostgreSQL the hub hears the database's feed, which follows its table.
                if let feed = databases.changeFeed { group.addTask { await feed.run() } }
                try await app.test(.router) { client in try await body(API(client: client), services.liveQuery) }
                group.cancelAll()
            }
        } catch {
            await databases.close()
            throw error
        }
        await databases.close()
    }

    /// Subscribes through the route; the answer's query id.
    static func subscribe(
        _ api: API, _ query: JSONValue, id: String = "livequery-route", headers: HTTPFields = Headers.client,
        extra: [String: JSONValue] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        var body: [String: JSONValue] = ["query": query, "id": .string(id)]
        for (key, value) in extra { body[key] = value }
        let answer = try await api.post("/1.1/LiveQuery/subscribe", headers: headers, .object(body))
        #expect(answer["id"]?.stringValue == id, "\(answer)", sourceLocation: sourceLocation)
        return try #require(answer["query_id"]?.stringValue, "\(answer)", sourceLocation: sourceLocation)
    }

    /// A connection logged in with `id`.
    static func connect(_ hub: LiveQueryHub, _ id: String = "livequery-route") async -> RecordingSink {
        let sink = RecordingSink()
        #expect(await hub.attach(sink, subscriptionID: id))
        return sink
    }
}

/// `POST /1.1/LiveQuery/subscribe` and `/unsubscribe`, and writes by every path reaching
/// subscribers, with attack tests: a subscription acts only as the request's authentication.
@Suite struct LiveQueryRouteTests {
    @Test func writesByEveryPathReachSubscribers() async throws {
        var functions = FunctionRegistry()
        functions.define("makeTodo") { request in
            .string(try await request.data.create("Todo", ["title": "from a function"]).objectId)
        }
        // A hook's own write (its data API skips the hooks of what it writes).
        functions.hooks.afterSave("Trigger") { request in
            _ = try await request.data.create("Todo", ["title": "from a hook"])
        }
        try await LiveQueryServer.run(functions: functions) { api, hub in
            let queryID = try await LiveQueryServer.subscribe(api, ["className": "Todo", "where": [:]])
            let sink = await LiveQueryServer.connect(hub)
            let id = try await api.create("Todo", ["title": "rest"])
            _ = try await api.put("/1.1/classes/Todo/\(id)", ["title": "rest edited"])
            _ = try await api.delete("/1.1/classes/Todo/\(id)")
            _ = try await api.post(
                "/1.1/batch", ["requests": [["method": "POST", "path": "/1.1/classes/Todo", "body": ["title": "batch"]]]])
            _ = try await api.post(
                "/1.1/batch/save",
                ["requests": [["method": "POST", "path": "/1.1/classes/Todo", "body": ["title": "batch save", "__internalId": "t1"]]]])
            _ = try await api.post("/1.1/functions/makeTodo", [:])
            _ = try await api.create("Trigger", ["n": 1])
            var seen: [String] = []
            for n in 1...7 {
                let event = try #require(await sink.json(n), "event \(n): \(sink.events)")
                #expect(event["query_id"]?.stringValue == queryID)
                seen.append("\(event["op"]?.stringValue ?? "") \(event["object"]?["title"]?.stringValue ?? "")")
            }
            #expect(
                seen == [
                    "create rest", "update rest edited", "delete rest edited", "create batch", "create batch save",
                    "create from a function", "create from a hook",
                ])
        }
    }

    @Test func aLoginThroughTheAPIReachesTheUsersOwnSubscription() async throws {
        try await LiveQueryServer.run { api, hub in
            let people = try await ACLTests.people(api)
            _ = try await LiveQueryServer.subscribe(
                api, ["className": "_User", "where": ["objectId": .string(people.ada)]], headers: people.adaSession)
            let sink = await LiveQueryServer.connect(hub)
            _ = try await api.post("/1.1/login", ["username": "bob", "password": "pw"])
            _ = try await api.post("/1.1/login", ["username": "ada", "password": "pw"])
            var n = 1
            var login: JSONValue?
            while login == nil, let event = await sink.json(n) {
                if event["op"] == "login" { login = event }
                n += 1
            }
            #expect(login?["object"]?["username"] == "ada")
            #expect(login?["object"]?["sessionToken"] == nil)
            #expect(!sink.events.contains { $0.json.contains("\"bob\"") })
        }
    }

    @Test func theSubscriptionActsOnlyAsTheRequestsAuthentication() async throws {
        try await LiveQueryServer.run { api, hub in
            let people = try await ACLTests.people(api)
            let adaToken = try #require(people.adaSession[HTTPField.Name("X-LC-Session")!])
            let bobToken = try #require(people.bobSession[HTTPField.Name("X-LC-Session")!])
            let query: JSONValue = ["className": "Doc", "where": [:]]
            // Bob's session with Ada's token in the body: refused, not Ada's rights.
            expectError(
                try await api.post(
                    "/1.1/LiveQuery/subscribe", headers: people.bobSession,
                    ["query": query, "id": "livequery-bob", "sessionToken": .string(adaToken)]), code: 119)
            // A token no session holds: refused, not anonymous.
            expectError(
                try await api.post(
                    "/1.1/LiveQuery/subscribe", ["query": query, "id": "livequery-x", "sessionToken": "not-a-session"]),
                code: 211)
            expectError(
                try await api.post(
                    "/1.1/LiveQuery/subscribe", headers: Headers.session("not-a-session"), ["query": query, "id": "livequery-x"]),
                code: 211)
            // Body fields naming a user or the master key name nobody.
            _ = try await LiveQueryServer.subscribe(
                api, query, id: "livequery-anon",
                extra: ["user": ["objectId": .string(people.ada)], "userId": .string(people.ada), "useMasterKey": true, "_MasterKey": "master"])
            // The body's token alone is the session (the iOS and C# SDKs send it there).
            _ = try await LiveQueryServer.subscribe(api, query, id: "livequery-bob", extra: ["sessionToken": .string(bobToken)])
            let anonymous = await LiveQueryServer.connect(hub, "livequery-anon")
            let bob = await LiveQueryServer.connect(hub, "livequery-bob")
            _ = try await api.create(
                "Doc", ["text": "ada's", "ACL": .object([people.ada: ["read": true, "write": true]])], headers: people.adaSession)
            _ = try await api.create(
                "Doc", ["text": "bob's", "ACL": .object([people.bob: ["read": true, "write": true]])], headers: people.bobSession)
            _ = try await api.create("Doc", ["text": "public"])
            #expect(await bob.json(1)?["object"]?["text"] == "bob's")
            #expect(await bob.json(2)?["object"]?["text"] == "public")
            #expect(await anonymous.json(1)?["object"]?["text"] == "public")
            #expect(anonymous.events.count == 1 && bob.events.count == 2)
            #expect(!(anonymous.events + bob.events).contains { $0.json.contains("ada's") })
        }
    }

    @Test func badSubscribeBodiesGetClearErrors() async throws {
        try await LiveQueryServer.run { api, hub in
            let cases: [(String, Int64)] = [
                (#"{"query":{"className":"Todo","where":{"a":{"$inQuery":{"className":"X","where":{}}}}},"id":"livequery-x"}"#, 102),
                (#"{"query":{"className":"_Session","where":{}},"id":"livequery-x"}"#, 403),
                (#"{"query":{"className":"_EngineEnvironment","where":{}},"id":"livequery-x"}"#, 119),
                (#"{"query":{"className":"Todo","where":{"a":{"$nope":1}}},"id":"livequery-x"}"#, 102),
                (#"{"query":"Todo","id":"livequery-x"}"#, 102),
                (#"{"id":"livequery-x"}"#, 102),
                (#"{"query":{"className":"Todo"},"id":42}"#, 1),
                (#"{"query":{"className":"Todo"},"id":"no spaces allowed"}"#, 1),
                (#"{"query":{"className":"Todo"},"id":"livequery-x","sessionToken":7}"#, 1),
                (#"{"query":{"className":"Todo"}"#, 107),
                (#"[1,2]"#, 107),
            ]
            for (body, code) in cases {
                let reply = try await api.send(.post, "/1.1/LiveQuery/subscribe", body: body)
                expectError(reply, code: code)
                #expect(reply.status != .internalServerError, "\(body)")
            }
            // Without the app's keys, nothing.
            let anonymous = try await api.send(
                .post, "/1.1/LiveQuery/subscribe", headers: Headers.none, body: #"{"query":{"className":"Todo"},"id":"livequery-x"}"#)
            #expect(anonymous.status == .unauthorized)
            expectError(try await api.post("/1.1/LiveQuery/unsubscribe", ["id": "livequery-x"]), code: 1)
            #expect(hub.statistics.subscriptions == 0)
        }
    }

    @Test func unsubscribeEndsTheSubscriptionAndTheQueryIdIsStable() async throws {
        try await LiveQueryServer.run { api, hub in
            let query: JSONValue = ["className": "Todo", "where": ["done": false], "keys": "title"]
            let first = try await LiveQueryServer.subscribe(api, query)
            // The JS and Objective-C SDKs subscribe again after a reconnect, under /1/ too.
            let again = try await api.post("/1/LiveQuery/subscribe", ["query": query, "id": "livequery-route"])
            #expect(again["query_id"]?.stringValue == first)
            let sink = await LiveQueryServer.connect(hub)
            _ = try await api.create("Todo", ["title": "a", "done": false, "secret": "s"])
            let event = try #require(await sink.json(1))
            #expect(event["object"]?["title"] == "a" && event["object"]?["secret"] == nil)
            let reply = try await api.post("/1.1/LiveQuery/unsubscribe", ["id": "livequery-route", "query_id": .string(first)])
            #expect(reply.status == .ok && reply.json == [:])
            #expect(try await api.post("/1.1/LiveQuery/unsubscribe", ["id": "livequery-route", "query_id": .string(first)]).status == .ok)
            #expect(hub.statistics.subscriptions == 0)
        }
    }

    @Test func theHubsCountsAreInTheMetrics() async throws {
        try await LiveQueryServer.run { api, hub in
            _ = try await LiveQueryServer.subscribe(api, ["className": "Todo", "where": [:]])
            let sink = await LiveQueryServer.connect(hub)
            _ = try await api.create("Todo", ["n": 1])
            _ = await sink.event(1)
            let text = try await api.get("/metrics", headers: Headers.master).text
            #expect(text.contains("functionhost_livequery_subscriptions 1"), "\(text)")
            #expect(text.contains("functionhost_livequery_connections 1"))
            #expect(text.contains("functionhost_livequery_events_delivered_total 1"))
            #expect(text.contains("functionhost_livequery_events_dropped_total 0"))
        }
    }
}
