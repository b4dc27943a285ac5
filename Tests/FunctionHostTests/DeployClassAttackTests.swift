import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 30, items 9 and 14: the records of deploys and variables (`_EngineEnvironment`,
/// `_CloudCodeVersion`) are the host's alone. Staging's code, which any client runs with
/// `X-LC-Prod: 0` on production's data, can't read production's secrets or switch its version;
/// no cloud code reaches the host's internal classes; and the master key reads deploys and
/// variables through the deploy API only, which masks secrets.
@Suite struct DeployClassAttackTests {
    static let production = """
        AV.Cloud.define('where', function () { return 'production'; });
        """

    /// Staging's code tries every data-API way at production's deploy records, as master.
    static let staging: JSONValue = [
        "cloud.js": """
        var master = { useMasterKey: true };
        function outcome(promise) {
          return promise.then(function (value) { return { ok: JSON.stringify(value) }; }, function (e) { return { code: e.code }; });
        }
        AV.Cloud.define('where', function () { return 'staging'; });
        AV.Cloud.define('attack', function (request) {
          var className = request.params.className;
          switch (request.params.how) {
            case 'find': return outcome(new AV.Query(className).find(master));
            case 'count': return outcome(new AV.Query(className).count(master));
            case 'get': return outcome(new AV.Query(className).get(request.params.id, master));
            case 'subquery':
              return outcome(new AV.Query('Probe').matchesQuery('ref', new AV.Query(className)).find(master));
            case 'create':
              return outcome(new AV.Object(className, { name: 'production', version: 1 }).save(null, master));
            case 'update':
              return outcome(AV.Object.createWithoutData(className, request.params.id).save({ version: 1 }, master));
            case 'delete':
              return outcome(AV.Object.createWithoutData(className, request.params.id).destroy(master));
          }
        });
        """
    ]

    /// Production runs `production` (version 1) with a secret; staging runs `staging` (version 2).
    static func run(_ body: @Sendable (API) async throws -> Void) async throws {
        var functions = FunctionRegistry()
        functions.define("attackSwift") { request -> String in
            let className = request.params["className"]?.stringValue ?? ""
            do {
                return "\(try await request.data.asMaster.find(className).count)"
            } catch let error as DataAPIError {
                return "\(error.code.rawValue)"
            }
        }
        try await EdgeFixture.run(functions: functions, scripts: ["cloud.js": production]) { api, _ in
            let deployed = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master, ["environment": "staging", "files": staging])
            #expect(deployed.status == .created, "\(deployed)")
            let secret = try await api.put(
                "/1.1/engine/variables", headers: Headers.master,
                ["environment": "production", "set": ["PAYMENT_KEY": "sk_live_12345"], "secret": true])
            #expect(secret.status == .ok, "\(secret)")
            try await body(api)
        }
    }

    static func productionVersion(_ api: API) async throws -> JSONValue? {
        let environments = try await api.get("/1.1/engine/environments", headers: Headers.master)
        return environments.results.first { $0["name"] == "production" }?["version"]
    }

    @Test(arguments: ["_EngineEnvironment", "_CloudCodeVersion", "_EngineBundle"])
    func stagingCodeCantReadOrChangeProductionsDeploys(className: String) async throws {
        try await Self.run { api in
            let version = try await Self.productionVersion(api)
            _ = try await api.create("Probe", ["name": "probe"])
            for how in ["find", "count", "get", "subquery", "create", "update", "delete"] {
                let reply = try await api.post(
                    "/1.1/functions/attack", headers: Headers.staging,
                    ["className": .string(className), "how": .string(how), "id": "v1"])
                #expect(reply["result"]?["code"] == 119, "\(how): \(reply)")
                #expect(!reply.text.contains("sk_live_12345"), "\(how): \(reply)")
            }
            let swift = try await api.post("/1.1/functions/attackSwift", headers: Headers.masterStaging, ["className": .string(className)])
            #expect(swift["result"] == "119", "\(swift)")
            // Production still runs its own version, and answers as production.
            #expect(try await Self.productionVersion(api) == version)
            #expect(try await api.post("/1.1/functions/where", [:])["result"] == "production")
            #expect(try await api.post("/1.1/functions/where", headers: Headers.staging, [:])["result"] == "staging")
        }
    }

    @Test(arguments: ["_ClassSettings", "_Outbox", "_VerificationCode", "_FileToken", "_CloudTask", "_Timer"])
    func noCloudCodeReachesTheHostsOwnClasses(className: String) async throws {
        try await Self.run { api in
            for headers in [Headers.staging, Headers.client] {
                for how in ["find", "create"] {
                    let reply = try await api.post(
                        "/1.1/functions/attack", headers: headers, ["className": .string(className), "how": .string(how)])
                    // Production has no `attack`: only staging's code is tried through JavaScript.
                    if headers == Headers.staging { #expect(reply["result"]?["code"] == 119, "\(how): \(reply)") }
                }
                let swift = try await api.post(
                    "/1.1/functions/attackSwift", headers: headers, ["className": .string(className)])
                #expect(swift["result"] == "119", "\(swift)")
            }
        }
    }

    @Test func theMasterKeyReadsDeploysThroughTheDeployAPIOnly() async throws {
        try await Self.run { api in
            let master = Headers.master
            let cql = "select * from _EngineEnvironment".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let reads = [
                try await api.get("/1.1/classes/_EngineEnvironment", headers: master),
                try await api.get("/1.1/classes/_EngineEnvironment?count=1&limit=0", headers: master),
                try await api.get("/1.1/classes/_CloudCodeVersion/v1", headers: master),
                try await api.get("/1.1/cloudQuery?cql=" + cql, headers: master),
                try await api.get("/1.1/scan/classes/_EngineEnvironment", headers: master),
                try await api.get("/1.1/schemas/_EngineEnvironment", headers: master),
                try await api.find(
                    "Probe", ["where": #"{"ref":{"$inQuery":{"className":"_EngineEnvironment","where":{}}}}"#], headers: master),
                try await api.find(
                    "Probe", ["where": #"{"name":{"$select":{"query":{"className":"_EngineEnvironment"},"key":"name"}}}"#],
                    headers: master),
                try await api.post("/1.1/classes/_EngineEnvironment", headers: master, ["name": "production", "version": 1]),
                try await api.put("/1.1/classes/_CloudCodeVersion/v1", headers: master, ["message": "mine"]),
                try await api.delete("/1.1/classes/_CloudCodeVersion/v1", headers: master),
            ]
            for reply in reads {
                expectError(reply, code: 119, status: .forbidden)
                #expect(!reply.text.contains("sk_live_12345"), "\(reply)")
            }
            let batch = try await api.post(
                "/1.1/batch", headers: master,
                ["requests": [["method": "GET", "path": "/1.1/classes/_EngineEnvironment"], ["method": "GET", "path": "/1.1/classes/_CloudCodeVersion/v1"]]])
            #expect(batch.json?.arrayValue?.allSatisfy { $0["error"]?["code"] == 119 } == true, "\(batch)")
            #expect(!batch.text.contains("sk_live_12345"))
            // An include through a Pointer to a deploy record leaves the Pointer.
            let probe = try await api.create("Probe", ["ref": pointer("_CloudCodeVersion", "v1")], headers: master)
            let included = try await api.fetch("Probe", probe, ["include": "ref"], headers: master)
            #expect(included["ref"] == pointer("_CloudCodeVersion", "v1"), "\(included)")
            // The class list export tools walk (`import --from-server`) names neither.
            let schemas = try await api.get("/1.1/schemas", headers: master)
            #expect(schemas.status == .ok && schemas.json?["Probe"] != nil, "\(schemas)")
            #expect(schemas.json?["_EngineEnvironment"] == nil && schemas.json?["_CloudCodeVersion"] == nil, "\(schemas)")

            // The deploy API answers them, the secret masked; the master key still reads the outbox.
            let variables = try await api.get("/1.1/engine/variables?environment=production", headers: master)
            #expect(variables["variables"]?["PAYMENT_KEY"] == "******", "\(variables)")
            #expect(!variables.text.contains("sk_live_12345"))
            _ = try await api.create("_Outbox", ["to": "ada"], headers: master)
            #expect(try await api.get("/1.1/classes/_Outbox", headers: master).results.count == 1)
        }
    }
}
