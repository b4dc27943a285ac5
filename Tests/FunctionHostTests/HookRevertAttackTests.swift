import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// A before-hook that hands the applied object back decides the write key by key: a key it set
/// or unset is written as it left it, a key it didn't touch keeps the client's operation and
/// nothing else. Found by an attack review: judged by value alone, a relation set back looked
/// untouched (the client's `AddRelation` went through the hook that refused it), an ACL that
/// came back from JavaScript without its `false` entries looked changed (the ACL read before
/// the hook overwrote the owner's concurrent change), and a field named `className` was lost.
@Suite struct HookRevertAttackTests {
    static let cloudCode = """
        var AV = require('leanengine');

        // A naive guard: only the owner changes more than the title; the rest is put back.
        AV.Cloud.beforeUpdate('Group', function (request) {
          var owner = request.original.get('owner');
          if (request.user && owner === request.user.id) return;
          request.object.updatedKeys.forEach(function (key) {
            if (key === 'title') return;
            var was = request.original.get(key);
            if (was === undefined) request.object.unset(key); else request.object.set(key, was);
          });
        });

        // A hook that touches nothing; while it runs, the owner closes the object (what a
        // concurrent request of the owner's does, made certain here).
        AV.Cloud.beforeUpdate('Probe', function (request) {
          if (request.object.updatedKeys.indexOf('name') < 0) return;
          var closed = AV.Object.createWithoutData('Probe', request.object.id);
          closed.set('ACL', request.object.get('closedACL'));
          return closed.save(null, { useMasterKey: true });
        });

        AV.Cloud.beforeUpdate('Keys', function (request) {
          request.object.set('seenClass', request.object.className);
        });
        """

    static func withServer(_ body: @Sendable (API) async throws -> Void) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try cloudCode.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory, body)
    }

    static func members(_ api: API, of group: String) async throws -> [JSONValue] {
        let related = try await api.get(
            "/1.1/classes/_User?where=\(encode(#"{"$relatedTo":{"object":{"__type":"Pointer","className":"Group","objectId":"\#(group)"},"key":"members"}}"#))",
            headers: Headers.master)
        return related.results.compactMap(\.["username"])
    }

    @Test func aRelationTheHookSetsBackKeepsItsMembers() async throws {
        try await Self.withServer { api in
            let owner = try await FileFixture.signUp(api, "owner")
            let attacker = try await FileFixture.signUp(api, "attacker")
            func user(_ id: String) -> JSONValue { ["__type": "Pointer", "className": "_User", "objectId": .string(id)] }
            let group = try await api.post(
                "/1.1/classes/Group", headers: owner.session,
                ["owner": .string(owner.id), "title": "t", "members": ["__op": "AddRelation", "objects": [user(owner.id)]]])
            let id = try #require(group.objectId, "\(group)")
            let join = try await api.put(
                "/1.1/classes/Group/\(id)", headers: attacker.session, ["members": ["__op": "AddRelation", "objects": [user(attacker.id)]]])
            #expect(join.status == .ok, "\(join)")
            let evict = try await api.put(
                "/1.1/classes/Group/\(id)", headers: attacker.session, ["members": ["__op": "RemoveRelation", "objects": [user(owner.id)]]])
            #expect(evict.status == .ok, "\(evict)")
            #expect(try await Self.members(api, of: id) == ["owner"], "the hook put the relation back")
            // The owner's own change still goes through.
            let add = try await api.put(
                "/1.1/classes/Group/\(id)", headers: owner.session, ["members": ["__op": "AddRelation", "objects": [user(attacker.id)]]])
            #expect(add.status == .ok, "\(add)")
            #expect(try await Self.members(api, of: id).count == 2)
        }
    }

    @Test func anACLTheHookDidntTouchIsNotWrittenBack() async throws {
        try await Self.withServer { api in
            let owner = try await FileFixture.signUp(api, "owner")
            let mine = JSONValue.object([owner.id: ["read": true, "write": true]])
            let open = JSONValue.object([
                "*": ["read": true, "write": true], owner.id: ["read": true, "write": true],
                "role:x": ["read": false, "write": false],
            ])
            let id = try await api.create("Probe", ["name": "x", "ACL": open, "closedACL": mine], headers: owner.session)
            let update = try await api.put("/1.1/classes/Probe/\(id)", ["name": "atk"])
            #expect(update.status == .ok, "\(update)")
            let stored = try await api.get("/1.1/classes/Probe/\(id)", headers: Headers.master)
            #expect(stored["ACL"] == mine, "the owner's change stands: \(stored)")
            #expect(stored["name"] == "atk")
        }
    }

    @Test func aFieldNamedClassNameSurvivesAHookAndDoesntRetypeTheObject() async throws {
        try await Self.withServer { api in
            let id = try await api.create("Keys", ["className": "_User", "n": 1])
            let update = try await api.put("/1.1/classes/Keys/\(id)", ["n": ["__op": "Increment", "amount": 1]])
            #expect(update.status == .ok, "\(update)")
            let stored = try await api.get("/1.1/classes/Keys/\(id)", headers: Headers.master)
            #expect(stored["className"] == "_User" && stored["n"] == 2, "\(stored)")
            #expect(stored["seenClass"] == "Keys", "\(stored)")
        }
    }
}
