import JSON
import Testing

@testable import DataAPI

@Suite("Class settings")
struct ClassSettingsTests {
    let db: SQLiteTestDatabase
    var service: DataService { db.service }

    init() throws {
        db = try SQLiteTestDatabase()
    }

    @Test("LeanCloud's export shape parses, merges action by action and flag by flag, and prints back")
    func mergingTheExportShape() throws {
        // The shape of a LeanCloud schema export's `<Class>_all.json` (../shared/reference/leancloud-migration.md §1.2),
        // `users` and `roles` as lists and as a comma-separated string.
        let export: JSONValue = [
            "schema": ["title": ["type": "String"], "secret": ["type": "String", "hidden": true]],
            "permissions": [
                "create": ["onlySignInUsers": true], "find": ["*": true],
                "delete": ["roles": ["admin"], "users": []], "update": ["users": "u1, u2", "roles": ""],
            ],
            "indexes": [],
        ]
        let settings = try ClassSettings.defaults(for: "Post").merging(export)
        #expect(settings.rule(for: .create) == .signedInUsers)
        #expect(settings.rule(for: .find) == .everyone)
        #expect(settings.rule(for: .get) == .everyone)
        #expect(settings.rule(for: .delete) == .listed(users: [], roles: ["admin"]))
        #expect(settings.rule(for: .update) == .listed(users: ["u1", "u2"], roles: []))
        #expect(settings.flags(of: "secret") == FieldFlags(hidden: true))
        // A descriptor with only a type changes nothing.
        #expect(settings.flags(of: "title").isEmpty)

        // Flags merge one by one: read_only added, hidden kept.
        let more = try settings.merging(["schema": ["secret": ["read_only": true]]])
        #expect(more.flags(of: "secret") == FieldFlags(hidden: true, readOnly: true))
        let cleared = try more.merging(["schema": ["secret": ["hidden": false, "read_only": false]]])
        #expect(cleared.fields["secret"] == nil)

        // Printed back in the same shape, and parsed again to the same settings.
        #expect(try ClassSettings().merging(more.json) == more)
        #expect(more.json["permissions"]?["delete"] == ["users": [], "roles": ["admin"]])
    }

    @Test("Malformed settings are refused with 107 and name what is wrong")
    func malformed() throws {
        let base = ClassSettings.defaults(for: "Post")
        for bad: JSONValue in [
            "text", ["permissions": ["fly": ["*": true]]], ["permissions": ["find": true]],
            ["permissions": ["find": ["users": [1]]]], ["schema": ["a": ["hidden": "yes"]]], ["schema": ["a": 1]],
        ] {
            #expect(throws: DataAPIError.self) { _ = try base.merging(bad) }
            do { _ = try base.merging(bad) } catch { #expect(error.code == .malformedJSON) }
        }
        #expect(throws: DataAPIError(.invalidKeyName, "Invalid field name 'a.b'.")) {
            _ = try base.merging(["schema": ["a.b": ["hidden": true]]])
        }
    }

    @Test("Defaults: _User find and _File delete closed, _User's personal fields private; the option opens _User find")
    func defaults() {
        let user = ClassSettings.defaults(for: "_User")
        #expect(user.rule(for: .find) == .nobody)
        #expect(user.rule(for: .create) == .everyone)
        #expect(user.flags(of: "email").userPrivate && user.flags(of: "authData").userPrivate)
        #expect(ClassSettings.defaults(for: "_User", openUserQueries: true).rule(for: .find) == .everyone)
        #expect(ClassSettings.defaults(for: "_File").rule(for: .delete) == .nobody)
        #expect(ClassSettings.defaults(for: "_Installation").rule(for: .find) == .nobody)
        #expect(ClassSettings.defaults(for: "Post") == ClassSettings(permissions: Dictionary(
            uniqueKeysWithValues: ClassAction.allCases.map { ($0, PermissionRule.everyone) })))
    }

    @Test("Rules decide by identity: everyone, signed-in users, listed users and roles, nobody")
    func rules() {
        let anonymous: [Identity] = ["*"]
        let ada: [Identity] = ["*", "ada", "role:editors"]
        #expect(PermissionRule.everyone.allows(anonymous, userId: nil))
        #expect(!PermissionRule.signedInUsers.allows(anonymous, userId: nil))
        #expect(PermissionRule.signedInUsers.allows(ada, userId: "ada"))
        #expect(PermissionRule.listed(users: ["ada"], roles: []).allows(ada, userId: "ada"))
        #expect(PermissionRule.listed(users: [], roles: ["editors"]).allows(ada, userId: "ada"))
        #expect(!PermissionRule.listed(users: ["bob"], roles: ["admins"]).allows(ada, userId: "ada"))
        // A user named like a role doesn't get the role's right, nor the other way round.
        #expect(!PermissionRule.listed(users: ["role:editors"], roles: []).allows(ada, userId: "ada"))
        #expect(!PermissionRule.nobody.allows(ada, userId: "ada"))
    }

    @Test("Settings are stored in the database, read back by another service on the same file, and need the master key")
    func storedAndShared() async throws {
        let client = Caller(isMaster: false)
        await expectDataAPIErrorAsync(119) {
            _ = try await service.updateClassSettings("Post", with: ["permissions": ["find": [:]]], caller: client)
        }
        await expectDataAPIErrorAsync(119) {
            _ = try await service.updateClassSettings("_Outbox", with: ["permissions": [:]], caller: .master)
        }
        let set = try await service.updateClassSettings("Post", with: ["permissions": ["find": ["users": []]]], caller: .master)
        #expect(set.rule(for: .find) == .nobody)
        #expect(try await service.classSettings(of: "Post") == set)
        let other = DataService(sqlite: try db.reopen())
        #expect(try await other.classSettings(of: "Post").rule(for: .find) == .nobody)
        // Clients can't read the stored settings themselves.
        await expectDataAPIErrorAsync(119) { _ = try await service.fetch("_ClassSettings", id: "Post", caller: client) }
    }

    @Test("What was set is stored, not the defaults: an untouched default follows the configuration, a default turned off stays off")
    func storedOverDefaults() async throws {
        let set = try await service.updateClassSettings(
            "_User", with: ["schema": ["email": ["user_private": false], "nickname": ["type": "String", "hidden": true]]],
            caller: .master)
        #expect(set.rule(for: .find) == .nobody)
        #expect(!set.flags(of: "email").userPrivate && set.flags(of: "authData").userPrivate)
        #expect(set.flags(of: "nickname") == FieldFlags(hidden: true))
        // Another host on the same database, configured to open user queries: find follows its
        // configuration, since nobody set it; email stays public, nickname hidden.
        var opened = DataService(sqlite: try db.reopen())
        opened.openUserQueries = true
        let seen = try await opened.classSettings(of: "_User")
        #expect(seen.rule(for: .find) == .everyone)
        #expect(!seen.flags(of: "email").userPrivate && seen.flags(of: "nickname").hidden)
        // Once set, a rule is the operator's, whatever the configuration.
        _ = try await service.updateClassSettings("_User", with: ["permissions": ["find": ["onlySignInUsers": true]]], caller: .master)
        let reopened = DataService(sqlite: try db.reopen())
        #expect(try await reopened.classSettings(of: "_User").rule(for: .find) == .signedInUsers)
        // A malformed change stores nothing.
        await expectDataAPIErrorAsync(107) {
            _ = try await service.updateClassSettings("_User", with: ["permissions": ["get": ["users": 3]]], caller: .master)
        }
        #expect(try await DataService(sqlite: try db.reopen()).classSettings(of: "_User").rule(for: .get) == .everyone)
    }

    @Test("A closed find refuses with 403, and a subquery into that class too; the master key isn't bound")
    func closedFindReachesSubqueries() async throws {
        _ = try await service.create("Secret", body: ["n": 1], caller: .master)
        _ = try await service.create("Post", body: ["n": 1], caller: .master)
        _ = try await service.updateClassSettings("Secret", with: ["permissions": ["find": ["users": []]]], caller: .master)
        let client = Caller(isMaster: false)
        await expectDataAPIErrorAsync(403) { _ = try await service.find(ObjectQuery(className: "Secret"), caller: client) }
        let subquery = try QueryPredicate(where: ["n": ["$inQuery": ["className": "Secret", "where": [:]]]])
        await expectDataAPIErrorAsync(403) {
            _ = try await service.find(ObjectQuery(className: "Post", predicate: subquery), caller: client)
        }
        #expect(try await service.find(ObjectQuery(className: "Secret"), caller: .master).objects.count == 1)
    }

    @Test("Hidden and read-only fields: not answered, not queried, not written by clients")
    func fieldFlags() async throws {
        let created = try await service.create("Card", body: ["pin": "1234", "label": "a", "level": 1], caller: .master)
        _ = try await service.updateClassSettings(
            "Card", with: ["schema": ["pin": ["hidden": true], "level": ["read_only": true]]], caller: .master)
        let client = Caller(isMaster: false)
        let fetched = try await service.fetch("Card", id: created.objectId, caller: client)
        #expect(fetched?.fields["pin"] == nil && fetched?.fields["label"] == "a")
        #expect(try await service.fetch("Card", id: created.objectId, caller: .master)?.fields["pin"] == "1234")
        for condition: JSONValue in [["pin": "1234"], ["$or": [["label": "b"], ["pin": ["$regex": "^1"]]]], ["pin.x": 1]] {
            await expectDataAPIErrorAsync(119) {
                _ = try await service.find(ObjectQuery(className: "Card", predicate: try QueryPredicate(where: condition)), caller: client)
            }
        }
        await expectDataAPIErrorAsync(119) {
            _ = try await service.find(ObjectQuery(className: "Card", order: [SortKey(key: "pin", descending: false)]), caller: client)
        }
        await expectDataAPIErrorAsync(117) {
            _ = try await service.update("Card", id: created.objectId, body: ["level": 9], caller: client)
        }
        await expectDataAPIErrorAsync(117) { _ = try await service.create("Card", body: ["level": 9], caller: client) }
        #expect(try await service.update("Card", id: created.objectId, body: ["level": 9], caller: .master).object.fields["level"] == 9)
    }

    @Test("add_fields closed: a client writes only the fields the class has")
    func addFields() async throws {
        _ = try await service.create("Note", body: ["text": "a"], caller: .master)
        _ = try await service.updateClassSettings("Note", with: ["permissions": ["add_fields": ["users": []]]], caller: .master)
        let client = Caller(isMaster: false)
        #expect(try await service.create("Note", body: ["text": "b"], caller: client).fields["text"] == "b")
        await expectDataAPIErrorAsync(403) { _ = try await service.create("Note", body: ["color": "red"], caller: client) }
        #expect(try await service.create("Note", body: ["color": "red"], caller: .master).fields["color"] == "red")
    }
}
