import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 23, item 2: with staging sharing production's data, a client's `X-LC-Prod: 0` must not
/// choose which validation guards production's objects. It still calls staging's functions; the
/// writes it causes run production's hooks. The master key may still try staging's hooks.
@Suite struct EdgeStagingAttackTests {
    /// Production refuses negative amounts; staging has no such check yet.
    static let production = """
        AV.Cloud.define('where', function () { return 'production'; });
        AV.Cloud.beforeSave('Order', function (request) {
          if (request.object.get('amount') < 0) throw new AV.Cloud.Error('No negative amounts.', { code: 142 });
          request.object.set('checkedBy', 'production');
        });
        """

    static let staging: JSONValue = [
        "cloud.js": """
        AV.Cloud.define('where', function () { return 'staging'; });
        AV.Cloud.define('order', function (request) {
          return new AV.Object('Order').save({ amount: request.params.amount }).then(function (o) { return o.id; });
        });
        AV.Cloud.define('orderSkippingChecks', function (request) {
          var order = new AV.Object('Order');
          order.ignoreHook('beforeSave');
          return order.save({ amount: request.params.amount }).then(function (o) { return o.id; });
        });
        AV.Cloud.beforeSave('Order', function (request) { request.object.set('checkedBy', 'staging'); });
        """
    ]

    static func headers(_ base: HTTPFields) -> HTTPFields {
        var headers = base
        headers[HTTPField.Name("X-LC-Prod")!] = "0"
        return headers
    }

    /// A server whose production runs `production` and whose staging runs `staging`.
    static func run(configure: @escaping (inout HostConfiguration) -> Void = { _ in }, _ body: @Sendable (API) async throws -> Void)
        async throws
    {
        try await EdgeFixture.run(scripts: ["cloud.js": production], configure: configure) { api, _ in
            let deployed = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master, ["environment": "staging", "files": staging])
            #expect(deployed.status == .created, "\(deployed)")
            try await body(api)
        }
    }

    @Test func aClientsStagingWriteOnSharedDataRunsProductionsHooks() async throws {
        try await Self.run { api in
            let client = Self.headers(Headers.client)
            // Straight through the REST API: production's check refuses it.
            expectError(try await api.post("/1.1/classes/Order", headers: client, ["amount": -100]), code: 142)
            // Through a staging function acting as the client: the same check.
            let viaFunction = try await api.post("/1.1/functions/order", headers: client, ["amount": -100])
            #expect(viaFunction.status != .ok && viaFunction.text.contains("No negative amounts."), "\(viaFunction)")
            let stored = try await api.find("Order", headers: Headers.master).results
            #expect(stored.isEmpty, "nothing slipped past production's validation: \(stored)")

            // The client still reaches staging's functions, and a valid write lands, checked by
            // production.
            #expect(try await api.post("/1.1/functions/where", headers: client, [:])["result"] == "staging")
            let id = try await api.create("Order", ["amount": 5], headers: client)
            #expect(try await api.fetch("Order", id, headers: Headers.master)["checkedBy"] == "production")
        }
    }

    /// Issue 30's second review: staging's code chose to skip production's hooks (`ignoreHook`),
    /// and a client's `X-LC-Prod: 0` call wrote past production's validation.
    @Test func stagingCodeCantSkipProductionsHooks() async throws {
        try await Self.run { api in
            let refused = try await api.post(
                "/1.1/functions/orderSkippingChecks", headers: Self.headers(Headers.client), ["amount": -100])
            #expect(refused.status != .ok && refused.text.contains("No negative amounts."), "\(refused)")
            #expect(try await api.find("Order", headers: Headers.master).results.isEmpty)
            // The master key's staging call writes under staging's hooks, which its code may skip.
            let skipped = try await api.post(
                "/1.1/functions/orderSkippingChecks", headers: Self.headers(Headers.master), ["amount": 5])
            let id = try #require(skipped["result"]?.stringValue, "\(skipped)")
            #expect(try await api.fetch("Order", id, headers: Headers.master)["checkedBy"] == nil)
        }
    }

    @Test func theMasterKeyMayStillRunStagingsHooks() async throws {
        try await Self.run { api in
            let id = try await api.create("Order", ["amount": 5], headers: Self.headers(Headers.master))
            #expect(try await api.fetch("Order", id, headers: Headers.master)["checkedBy"] == "staging")
        }
    }

    @Test func stagingWithItsOwnDataKeepsItsOwnHooks() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Staging's own SQLite database: its hooks guard only its own objects.
        try await Self.run(configure: { $0.stagingDataDirectory = directory }) { api in
            let client = Self.headers(Headers.client)
            let id = try await api.create("Order", ["amount": -1], headers: client)
            #expect(try await api.fetch("Order", id, headers: client)["checkedBy"] == "staging")
            #expect(try await api.find("Order", headers: Headers.master).results.isEmpty, "production's data untouched")
        }
    }
}
