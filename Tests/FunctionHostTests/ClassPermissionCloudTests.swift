import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Class-level permissions bind cloud code's data APIs as they bind clients: the JavaScript
/// data API acting as a user (`{sessionToken}`), the Swift `DataClient` acting as the caller;
/// with the master key (`useMasterKey`, `data.asMaster`) nothing binds them.
@Suite struct ClassPermissionCloudTests {
    /// One function doing the action its parameters name, as the caller or with the master
    /// key, and answering a refusal as data (so a test reads its code and message).
    static let script = """
        var AV = require('leanengine');

        AV.Cloud.define('perm', async function (request) {
          var p = request.params;
          var options = p.master ? { useMasterKey: true } : { sessionToken: request.sessionToken };
          function plain(object) { return object.toJSON(); }
          try {
            switch (p.action) {
              case 'get':
                return { ok: true, object: plain(await new AV.Query(p.className).get(p.id, options)) };
              case 'find':
                var query = new AV.Query(p.className);
                if (p.key) query.equalTo(p.key, p.value);
                if (p.include) query.include(p.include);
                return { ok: true, results: (await query.find(options)).map(plain) };
              case 'create':
                var created = new AV.Object(p.className);
                Object.keys(p.fields).forEach(function (key) { created.set(key, p.fields[key]); });
                await created.save(null, options);
                return { ok: true, id: created.id };
              case 'update':
                var object = AV.Object.createWithoutData(p.className, p.id);
                Object.keys(p.fields).forEach(function (key) { object.set(key, p.fields[key]); });
                await object.save(null, options);
                return { ok: true };
              case 'delete':
                await AV.Object.createWithoutData(p.className, p.id).destroy(options);
                return { ok: true };
            }
          } catch (error) {
            return { ok: false, code: error.code, error: error.message };
          }
        });
        """

    /// The same function in Swift, over `request.data`.
    static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.define("swiftPerm") { request -> JSONValue in
            let p = request.params
            let data = p["master"] == true ? request.data.asMaster : request.data
            let className = p["className"]?.stringValue ?? ""
            let id = p["id"]?.stringValue ?? ""
            let fields = p["fields"]?.objectValue ?? [:]
            do {
                switch p["action"]?.stringValue {
                case "get":
                    let object = try await data.fetch(className, id: id)
                    return ["ok": true, "object": object.map { .object($0.restJSON()) } ?? .null]
                case "find":
                    let condition: JSONValue? = p["key"]?.stringValue.map { [$0: p["value"] ?? .null] }
                    let found = try await data.find(className, where: condition)
                    return ["ok": true, "results": .array(found.map { .object($0.restJSON()) })]
                case "create":
                    return ["ok": true, "id": .string(try await data.create(className, fields).objectId)]
                case "update":
                    _ = try await data.update(className, id: id, fields)
                    return ["ok": true]
                default:
                    try await data.delete(className, id: id)
                    return ["ok": true]
                }
            } catch let error as DataAPIError {
                return ["ok": false, "code": .int(Int64(error.code.rawValue)), "error": .string(error.message)]
            }
        }
        return registry
    }

    /// Calls `function` (`perm` or `swiftPerm`) for one action; its answer.
    static func call(
        _ api: API, _ function: String, _ action: String, _ params: JSONValue = [:], headers: HTTPFields,
        master: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        var members = params.objectValue ?? [:]
        members["action"] = .string(action)
        members["master"] = .bool(master)
        return try await api.jsFunction(function, .object(members), headers: headers, sourceLocation: sourceLocation)
    }

    /// Runs every action through `function` for a refused caller, an allowed one and the
    /// master key, with `rule` set on every action of `Note` and on `add_fields` of `Memo`.
    static func checkEveryAction(
        _ function: String, rule: @escaping @Sendable (PermissionWorld) -> JSONValue, refused: String, allowed: String
    ) async throws {
        try await JSDataServer.run(["perm.js": script], functions: registry) { api in
            let world = try await PermissionWorld.make(api)
            let note = try await api.create("Note", ["text": "seed"], headers: Headers.master)
            _ = try await api.create("Memo", ["text": "seed"], headers: Headers.master)
            try await world.permit("Note", ["get", "find", "create", "update", "delete"], rule(world))
            try await world.permit("Memo", ["add_fields"], rule(world))
            var fresh = 0
            func attempt(_ action: String, _ headers: HTTPFields, master: Bool = false) async throws -> JSONValue {
                switch action {
                case "get", "update":
                    return try await call(
                        api, function, action, ["className": "Note", "id": .string(note), "fields": ["text": "seed"]],
                        headers: headers, master: master)
                case "find":
                    return try await call(api, function, action, ["className": "Note"], headers: headers, master: master)
                case "create":
                    return try await call(api, function, action, ["className": "Note", "fields": ["text": "new"]], headers: headers, master: master)
                case "delete":
                    let id = try await api.create("Note", ["text": "doomed"], headers: Headers.master)
                    return try await call(api, function, action, ["className": "Note", "id": .string(id)], headers: headers, master: master)
                default:
                    fresh += 1
                    return try await call(
                        api, function, "create", ["className": "Memo", "fields": ["text": "new", "field\(fresh)": 1]],
                        headers: headers, master: master)
                }
            }
            for action in ClassPermissionRouteTests.actions {
                let no = try await attempt(action, world.session(refused))
                #expect(no == ["ok": false, "code": 403, "error": .string("Forbidden to \(action) by class permissions.")], "\(function) \(action) as \(refused): \(no)")
                let yes = try await attempt(action, world.session(allowed))
                #expect(yes["ok"] == true, "\(function) \(action) as \(allowed): \(yes)")
                // The master key, even called by the refused user.
                let master = try await attempt(action, world.session(refused), master: true)
                #expect(master["ok"] == true, "\(function) \(action) with the master key: \(master)")
            }
            let found = try await call(api, function, "find", ["className": "Note"], headers: world.session(allowed))
            #expect(found["results"]?.arrayValue?.contains { $0["objectId"] == .string(note) } == true, "\(found)")
        }
    }

    @Test func theJavaScriptDataAPIIsBoundByClassPermissions() async throws {
        // carol is in `staff` through its child role `interns`; dan isn't.
        try await Self.checkEveryAction("perm", rule: { _ in ["roles": ["staff"]] }, refused: "dan", allowed: "carol")
    }

    @Test func theSwiftDataAPIIsBoundByClassPermissions() async throws {
        try await Self.checkEveryAction("swiftPerm", rule: { ["users": [.string($0.ada)]] }, refused: "bob", allowed: "ada")
    }

    /// A function called with no user acts as nobody: a rule for signed-in users refuses it.
    @Test func cloudCodeWithoutAUserIsNotSignedIn() async throws {
        try await JSDataServer.run(["perm.js": Self.script], functions: Self.registry) { api in
            let world = try await PermissionWorld.make(api)
            _ = try await api.create("Note", ["text": "seed"], headers: Headers.master)
            try await world.permit("Note", ["find"], ["onlySignInUsers": true])
            for function in ["perm", "swiftPerm"] {
                let anonymous = try await Self.call(api, function, "find", ["className": "Note"], headers: Headers.client)
                #expect(anonymous["code"] == 403, "\(function): \(anonymous)")
                let signedIn = try await Self.call(api, function, "find", ["className": "Note"], headers: world.session("dan"))
                #expect(signedIn["results"]?.arrayValue?.count == 1, "\(function): \(signedIn)")
            }
        }
    }
}
