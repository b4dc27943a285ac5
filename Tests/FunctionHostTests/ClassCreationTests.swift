import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// A class made empty: through Parse's `POST /1.1/schemas/{Class}`, LeanCloud's `PUT
/// /1.1/schemas/{Class}` (what the console's "create class, then set permissions" becomes),
/// `functionhost schema create` and an export's schema file without rows. An empty class
/// answers queries with no results, where a class never made answers 101.
@Suite struct ClassCreationTests {
    /// What a blog theme's page-view counter needs, as a Parse SDK's `ParseSchema.save()` sends it.
    static let counter: JSONValue = [
        "className": "Counter",
        "fields": ["time": ["type": "Number"], "url": ["type": "String"], "title": ["type": "String"]],
        "classLevelPermissions": [
            "get": ["*": true], "find": ["*": true], "count": ["*": true], "create": ["*": true],
            "update": ["*": true], "delete": [:], "addField": [:],
        ],
    ]

    /// The empty answers of an empty class: find, count, and the same through CQL.
    static func expectEmpty(_ api: API, _ className: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let found = try await api.get("/1.1/classes/\(className)")
        #expect(found.status == .ok && found.json == ["results": []], "\(found)", sourceLocation: sourceLocation)
        let counted = try await api.get("/1.1/classes/\(className)?count=1&limit=0")
        #expect(counted.status == .ok && counted["count"] == 0, "\(counted)", sourceLocation: sourceLocation)
        let cql = try await api.get("/1.1/cloudQuery?cql=select%20*%20from%20\(className)")
        #expect(cql.status == .ok && cql.results.isEmpty, "\(cql)", sourceLocation: sourceLocation)
    }

    @Test func aClassCreatedThroughTheSchemaAPIIsEmptyTypedAndPermitted() async throws {
        try await TestServer.run { api in
            expectError(try await api.get("/1.1/classes/Counter"), code: 101)
            let created = try await api.post("/1.1/schemas/Counter", headers: Headers.master, Self.counter)
            #expect(created.status == .ok, "\(created)")
            #expect(created["className"] == "Counter" && created["fields"]?["time"] == ["type": "Number"], "\(created)")
            #expect(created["fields"]?["objectId"] == ["type": "String"])
            #expect(created["classLevelPermissions"]?["delete"] == [:] && created["classLevelPermissions"]?["find"] == ["*": true])
            try await Self.expectEmpty(api, "Counter")
            let schema = try await api.get("/1.1/schemas/Counter", headers: Headers.master)
            #expect(schema["url"] == ["type": "String"], "\(schema)")
            // The types hold from the first object on; the permissions are in force.
            expectError(try await api.post("/1.1/classes/Counter", ["time": "many"]), code: 111, status: .badRequest)
            let id = try await api.create("Counter", ["time": 1, "url": "/hello"])
            expectError(try await api.delete("/1.1/classes/Counter/\(id)"), code: 403, status: .forbidden)
            expectError(try await api.post("/1.1/classes/Counter", ["extra": 1]), code: 403, status: .forbidden)
            // Created once: again, or a class that always exists, is 103.
            expectError(try await api.post("/1.1/schemas/Counter", headers: Headers.master, Self.counter), code: 103)
            expectError(try await api.post("/1.1/schemas/_User", headers: Headers.master, [:]), code: 103)
            // Parse's other form: the class in the body alone.
            let bare = try await api.post("/1.1/schemas", headers: Headers.master, ["className": "Visit"])
            #expect(bare.status == .ok && bare["className"] == "Visit", "\(bare)")
            try await Self.expectEmpty(api, "Visit")
        }
    }

    /// The console's order, as the theme's docs give it: the class's permissions first.
    @Test func settingPermissionsOnANewClassMakesIt() async throws {
        try await TestServer.run { api in
            let set = try await api.put(
                "/1.1/schemas/Counter", headers: Headers.master,
                ["permissions": ["delete": ["users": [], "roles": []], "add_fields": ["users": [], "roles": []]]])
            #expect(set.status == .ok && set["permissions"]?["delete"] == ["users": [], "roles": []], "\(set)")
            try await Self.expectEmpty(api, "Counter")
            #expect(try await api.get("/1.1/schemas", headers: Headers.master)["Counter"] != nil)
            // Parse's PUT adds fields to a class that has some.
            let typed = try await api.put("/1.1/schemas/Counter", headers: Headers.master, ["fields": ["time": ["type": "Number"]]])
            #expect(typed.status == .ok, "\(typed)")
            #expect(try await api.get("/1.1/schemas/Counter", headers: Headers.master)["time"] == ["type": "Number"])
            expectError(
                try await api.put("/1.1/schemas/Counter", headers: Headers.master, ["fields": ["time": ["type": "String"]]]),
                code: 111, status: .badRequest)
        }
    }

    @Test func aRefusedSchemaCreatesNothing() async throws {
        try await TestServer.run { api in
            let refusals: [(JSONValue, Int64)] = [
                (["className": "Other"], 103),
                (["fields": ["time": ["type": "Integer"]]], 111),
                (["fields": ["time": ["type": "ACL"]]], 111),
                (["fields": ["time": "Number"]], 107),
                (["fields": ["__op": ["type": "String"]]], 105),
                (["fields": ["time": ["__op": "Delete"]]], 1),
                (["classLevelPermissions": ["protectedFields": ["*": ["secret"]]]], 1),
                (["classLevelPermissions": ["find": ["*": true], "count": [:]]], 1),
                (["classLevelPermissions": ["find": ["*": "yes"]]], 107),
                (["permissions": ["find": ["*": true]], "classLevelPermissions": ["find": ["*": true]]], 1),
                (["fields": .object(Dictionary(uniqueKeysWithValues: (0...DataService.maxDeclaredFields).map { ("f\($0)", ["type": "String"]) }))], 1),
            ]
            for (body, code) in refusals {
                expectError(try await api.post("/1.1/schemas/Counter", headers: Headers.master, body), code: code)
                expectError(try await api.put("/1.1/schemas/Counter", headers: Headers.master, body), code: code)
            }
            expectError(try await api.post("/1.1/schemas/9lives", headers: Headers.master, [:]), code: 103)
            expectError(try await api.post("/1.1/schemas", headers: Headers.master, [:]), code: 103)
            expectError(try await api.get("/1.1/classes/Counter"), code: 101)
            #expect(try await api.get("/1.1/schemas", headers: Headers.master)["Counter"] == nil)
        }
    }

    @Test func attackTheAppKeyNeitherCreatesNorAltersASchema() async throws {
        try await TestServer.run { api in
            let signup = try await api.post("/1.1/users", ["username": "eve", "password": "secret1"])
            let eve = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", try #require(signup["sessionToken"]?.stringValue))])
            _ = try await api.create("Post", ["title": "hello"])
            for headers in [Headers.client, eve] {
                expectError(try await api.post("/1.1/schemas/Counter", headers: headers, Self.counter), code: 119, status: .forbidden)
                expectError(try await api.post("/1.1/schemas", headers: headers, Self.counter), code: 119, status: .forbidden)
                expectError(try await api.put("/1.1/schemas/Counter", headers: headers, Self.counter), code: 119, status: .forbidden)
                expectError(
                    try await api.put("/1.1/schemas/Post", headers: headers, ["fields": ["secret": ["type": "Number"]], "permissions": ["find": ["*": true]]]),
                    code: 119, status: .forbidden)
            }
            expectError(try await api.get("/1.1/classes/Counter"), code: 101)
            let post = try await api.get("/1.1/schemas/Post", headers: Headers.master)
            #expect(post["secret"] == nil, "\(post)")
            // The host's own classes aren't the master key's to create either.
            expectError(try await api.post("/1.1/schemas/_Outbox", headers: Headers.master, [:]), code: 119)
        }
    }

    @Test func theCommandLineCreatesAClass() async throws {
        try await TestServer.run(transport: .socket) { api in
            let run = try await CLI.functionhost(
                ["schema", "create", "Counter", "--field", "time:Number", "--field", "url:String"], port: api.port)
            #expect(run.status == 0 && run.output.contains("Counter: created, with time (Number), url (String)."), "\(run)")
            try await Self.expectEmpty(api, "Counter")
            let again = try await CLI.functionhost(["schema", "create", "Counter"], port: api.port)
            #expect(again.status != 0 && again.errors.contains("Counter already exists"), "\(again)")
            let bad = try await CLI.functionhost(["schema", "create", "Counter", "--field", "time:Integer"], port: api.port)
            #expect(bad.status != 0 && bad.errors.contains("is not name:Type"), "\(bad)")
        }
    }

    /// An export's class with a schema file and no rows (LeanCloud exports a class that has
    /// none that way): imported, it is there, empty.
    @Test func anImportedSchemaWithoutRowsMakesTheClass() async throws {
        let export = ImportFixture(root: try TestServer.makeDataDirectory())
        defer { export.remove() }
        try ImportFixture.write(
            #"{"schema":{"objectId":{"type":"String"},"time":{"type":"Number"},"ACL":{"type":"ACL"}},"permissions":{"delete":{"users":[],"roles":[]}}}"#,
            to: export.folder + "/Counter_all.json")
        try ImportFixture.write(#"{"schema":{"objectId":{"type":"String"},"createdAt":{"type":"Date"}}}"#, to: export.folder + "/Visit_schema.json")
        // The console's export of a class without objects: its header line alone.
        try ImportFixture.write(#"#filetype:JSON-streaming {"type":"Class","class":"Like"}"# + "\n", to: export.folder + "/Like.0.jsonl")
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await export.importInto(directory, path: export.folder)
        try await TestServer.run(dataDirectory: directory) { api in
            try await Self.expectEmpty(api, "Counter")
            try await Self.expectEmpty(api, "Visit")
            try await Self.expectEmpty(api, "Like")
            #expect(try await api.get("/1.1/schemas/Counter", headers: Headers.master)["time"] == ["type": "Number"])
        }
    }

    /// `functionhost import --from-server`: a class the source lists but holds no objects of
    /// comes over, empty, with its fields' types and permissions.
    @Test func aPulledClassWithoutObjectsComesOverEmpty() async throws {
        let destination = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let pulled = try await TestServer.run(transport: .socket) { api in
            #expect(try await api.post("/1.1/schemas/Counter", headers: Headers.master, Self.counter).status == .ok)
            return try await CLI.functionhost(
                ["import", "--from-server", "http://127.0.0.1:\(api.port)", "--app-id", "app", "--master-key", "master"]
                    + ImportCommandTests.target(destination),
                port: api.port)
        }
        #expect(pulled.status == 0, "\(pulled)")
        try await TestServer.run(dataDirectory: destination) { api in
            try await Self.expectEmpty(api, "Counter")
            expectError(try await api.delete("/1.1/classes/Counter/anything"), code: 403, status: .forbidden)
            let schema = try await api.get("/1.1/schemas/Counter", headers: Headers.master)
            #expect(schema["time"] == ["type": "Number"] && schema["url"] == ["type": "String"], "\(schema)")
        }
    }
}
