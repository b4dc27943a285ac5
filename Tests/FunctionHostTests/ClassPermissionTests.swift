import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The people of a class-permission test: four signed-up users and two roles, `interns` being a
/// child of `staff` (its members hold `staff`'s rights too, as LeanCloud's role hierarchy has it).
///
/// - ada is named by id in `users` rules;
/// - bob is a member of `staff`;
/// - carol is a member of `interns` only, so she reaches `staff` through the child role;
/// - dan is signed in and nothing else.
struct PermissionWorld: Sendable {
    let api: API
    /// Each user's id, by name.
    let ids: [String: String]
    /// Each user's client headers with its session, by name.
    let sessions: [String: HTTPFields]

    var ada: String { ids["ada"]! }

    /// Every kind of caller a rule tells apart, by name: no user, each user, the master key.
    var callers: [(name: String, headers: HTTPFields)] {
        [("anonymous", Headers.client)] + ["ada", "bob", "carol", "dan"].map { ($0, sessions[$0]!) }
            + [("master", Headers.master)]
    }

    func session(_ name: String) -> HTTPFields { sessions[name]! }

    /// Signs the four users up and makes the two roles with the master key.
    static func make(_ api: API) async throws -> PermissionWorld {
        var ids: [String: String] = [:]
        var sessions: [String: HTTPFields] = [:]
        for name in ["ada", "bob", "carol", "dan"] {
            let reply = try await api.post("/1.1/users", ["username": .string(name), "password": "pw"])
            let id = try #require(reply.objectId, "signup \(name): \(reply)")
            ids[name] = id
            sessions[name] = Headers.session(try #require(reply["sessionToken"]?.stringValue, "\(reply)"))
        }
        let staff = try await api.create(
            "_Role", RoleClientTests.role("staff", acl: ["*": ["read": true]], users: [ids["bob"]!]), headers: Headers.master)
        let interns = try await api.create(
            "_Role", RoleClientTests.role("interns", acl: ["*": ["read": true]], users: [ids["carol"]!]),
            headers: Headers.master)
        // A parent role's `roles` relation lists its child roles.
        let linked = try await api.put(
            "/1.1/roles/\(staff)", headers: Headers.master,
            ["roles": op("AddRelation", ["objects": [pointer("_Role", interns)]])])
        #expect(linked.status == .ok, "\(linked)")
        return PermissionWorld(api: api, ids: ids, sessions: sessions)
    }

    /// Sets class settings (`{"permissions": ..., "schema": ...}`) with the master key.
    func configure(_ className: String, _ settings: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reply = try await api.put("/1.1/schemas/\(className)", headers: Headers.master, settings)
        #expect(reply.status == .ok, "PUT /schemas/\(className): \(reply)", sourceLocation: sourceLocation)
    }

    /// Sets the same rule for several actions of a class.
    func permit(
        _ className: String, _ actions: [String], _ rule: JSONValue, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let rules = Dictionary(uniqueKeysWithValues: actions.map { ($0, rule) })
        try await configure(className, ["permissions": .object(rules)], sourceLocation: sourceLocation)
    }
}

/// LeanCloud's answer to an action a class permission refuses.
func forbidden(_ action: String) -> JSONValue {
    ["code": 403, "error": .string("Forbidden to \(action) by class permissions.")]
}

/// Checks a refusal by class permissions: 403 and exactly LeanCloud's body.
func expectForbidden(_ reply: Reply, _ action: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == .forbidden && reply.json == forbidden(action), "\(action): \(reply)", sourceLocation: sourceLocation)
}

/// Each class-level permission, under each form a rule takes, decides the REST routes of its
/// action for every kind of caller; the master key is never bound.
@Suite struct ClassPermissionTests {
    /// A rule's form and whom it lets in (besides the master key, always).
    struct RuleForm: Sendable {
        let name: String
        let rule: @Sendable (PermissionWorld) -> JSONValue
        let allowed: Set<String>
    }

    static let forms: [RuleForm] = [
        RuleForm(name: "everyone", rule: { _ in ["*": true] }, allowed: ["anonymous", "ada", "bob", "carol", "dan"]),
        RuleForm(name: "signed in", rule: { _ in ["onlySignInUsers": true] }, allowed: ["ada", "bob", "carol", "dan"]),
        RuleForm(name: "users", rule: { ["users": [.string($0.ada)], "roles": []] }, allowed: ["ada"]),
        // carol is in `interns`, a child role of `staff`.
        RuleForm(name: "roles", rule: { _ in ["roles": ["staff"]] }, allowed: ["bob", "carol"]),
        // Exports write the lists as comma-separated strings too.
        RuleForm(name: "listed as text", rule: { ["users": .string("\($0.ada), \($0.ids["dan"]!)"), "roles": "interns"] }, allowed: ["ada", "carol", "dan"]),
        RuleForm(name: "nobody", rule: { _ in ["users": [], "roles": []] }, allowed: []),
    ]

    /// Does `action` on `Note` (whose field `text` exists) as `headers`; returns whether it was
    /// done, after checking that a refusal is exactly LeanCloud's 403 and changed nothing.
    static func attempt(
        _ action: String, as headers: HTTPFields, in world: PermissionWorld, seed: String, fresh: inout Int
    ) async throws -> Bool {
        let api = world.api
        let reply: Reply
        var target: String? = nil
        switch action {
        case "get": reply = try await api.get("/1.1/classes/Note/\(seed)", headers: headers)
        case "find": reply = try await api.find("Note", ["where": #"{"text":"seed"}"#], headers: headers)
        case "create": reply = try await api.post("/1.1/classes/Note", headers: headers, ["text": "new"])
        case "update": reply = try await api.put("/1.1/classes/Note/\(seed)", headers: headers, ["text": "seed"])
        case "delete":
            let id = try await api.create("Note", ["text": "doomed"], headers: Headers.master)
            target = id
            reply = try await api.delete("/1.1/classes/Note/\(id)", headers: headers)
        default:
            // A field no Note has had yet, so the write adds one.
            fresh += 1
            reply = try await api.post("/1.1/classes/Note", headers: headers, ["text": "new", "extra\(fresh)": 1])
        }
        if (200..<300).contains(reply.status.code) {
            switch action {
            case "get": #expect(reply["text"] == "seed", "\(reply)")
            case "find": #expect(reply.results.map { $0["objectId"] } == [.string(seed)], "\(reply)")
            default: break
            }
            return true
        }
        expectForbidden(reply, action)
        if let target { #expect(try await api.fetch("Note", target, headers: Headers.master)["text"] == "doomed") }
        return false
    }

    @Test(arguments: ["get", "find", "create", "update", "delete", "add_fields"])
    func everyRuleFormDecidesTheRESTRoutes(action: String) async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let seed = try await api.create("Note", ["text": "seed"], headers: Headers.master)
            var fresh = 0
            for form in Self.forms {
                try await world.permit("Note", [action], form.rule(world))
                for caller in world.callers {
                    let done = try await Self.attempt(action, as: caller.headers, in: world, seed: seed, fresh: &fresh)
                    let expected = caller.name == "master" || form.allowed.contains(caller.name)
                    #expect(done == expected, "\(action) under \(form.name) as \(caller.name)")
                }
            }
        }
    }

    /// `add_fields` governs only new fields: a write of the class's known fields goes through
    /// when it is closed, and a refused write leaves the schema as it was.
    @Test func closedAddFieldsStillWritesKnownFields() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let id = try await api.create("Note", ["text": "seed"], headers: Headers.master)
            try await world.permit("Note", ["add_fields"], ["users": [], "roles": []])
            let user = world.session("ada")
            #expect(try await api.post("/1.1/classes/Note", headers: user, ["text": "known"]).status == .created)
            #expect(try await api.put("/1.1/classes/Note/\(id)", headers: user, ["text": "changed"]).status == .ok)
            expectForbidden(try await api.put("/1.1/classes/Note/\(id)", headers: user, ["mood": "new"]), "add_fields")
            let schema = try await api.get("/1.1/schemas/Note", headers: Headers.master)
            #expect(schema.text.contains("mood") == false, "\(schema)")
            #expect(try await api.put("/1.1/classes/Note/\(id)", headers: Headers.master, ["mood": "new"]).status == .ok)
            // Once the master key added it, it is a known field for everyone.
            #expect(try await api.put("/1.1/classes/Note/\(id)", headers: user, ["mood": "newer"]).status == .ok)
        }
    }

    /// Settings are per class and per action: closing one leaves the others and other classes open.
    @Test func settingsApplyToTheirClassAndActionOnly() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let note = try await api.create("Note", ["text": "a"], headers: Headers.master)
            _ = try await api.create("Memo", ["text": "b"], headers: Headers.master)
            try await world.permit("Note", ["find"], ["users": [], "roles": []])
            let user = world.session("bob")
            expectForbidden(try await api.find("Note", headers: user), "find")
            #expect(try await api.get("/1.1/classes/Note/\(note)", headers: user)["text"] == "a", "get stays open")
            #expect(try await api.find("Memo", headers: user).results.count == 1, "another class stays open")
            // A later change of another action keeps this one.
            try await world.permit("Note", ["get"], ["onlySignInUsers": true])
            expectForbidden(try await api.find("Note", headers: user), "find")
            let document = try await api.get("/1.1/schemas/Note/permissions", headers: Headers.master)
            #expect(document["permissions"]?["find"] == ["users": [], "roles": []], "\(document)")
            #expect(document["permissions"]?["get"] == ["onlySignInUsers": true], "\(document)")
        }
    }
}
