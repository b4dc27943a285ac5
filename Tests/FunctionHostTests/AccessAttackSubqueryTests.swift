import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 22's subquery oracle: an attacker counts their own objects against a subquery over
/// what they can't read (hidden `_User` fields, internal classes, ACL-private objects and
/// files). Each attack is first shown to be live with the master key, so a refusal can't come
/// from missing data or a malformed query.
@Suite struct AccessAttackSubqueryTests {
    typealias A = AccessAttack

    /// Every subquery operator, and nestings two and three levels deep, over `sessionToken` and
    /// `password`: refused with the field's name, never answered.
    @Test func hiddenUserFieldsCantBeProbedThroughSubqueries() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            // Bob's own probe: named like ada, pointing at her.
            let probe = try await api.create(
                "Probe", ["name": "ada", "user": pointer("_User", people.ada)], headers: people.bobSession)
            let prefix = String(people.adaToken.prefix(8))
            let token = A.subquery("_User", #"{"sessionToken":{"$regex":"^\#(prefix)"}}"#)
            let password = A.subquery("_User", #"{"password":{"$exists":true}}"#)
            // Bob's probe is found by what he may query: only the credentials are refused.
            let live = try await A.ids(api, "Probe", where: #"{"name":"ada"}"#, headers: people.bobSession)
            #expect(live.ids == [probe], "precondition: bob finds his probe")

            var attacks: [(where: String, field: String)] = []
            for (query, field) in [(token, "sessionToken"), (password, "password")] {
                attacks += [
                    (A.select("name", query, key: "username"), field),
                    (A.select("name", query, key: "username", negated: true), field),
                    (A.inQuery("user", query), field),
                    (A.inQuery("user", query, negated: true), field),
                    // Two levels: a subquery over Probe whose own subquery reads _User.
                    (A.select("name", A.subquery("Probe", A.inQuery("user", query)), key: "name"), field),
                    // Three levels, mixing operators, under $or.
                    (#"{"$or":[{"name":"nobody"},"# + Self.threeLevels(query) + "]}", field),
                ]
            }
            // The selected key itself may not be a hidden field.
            attacks.append((A.select("name", A.subquery("_User"), key: "sessionToken"), "sessionToken"))
            attacks.append((A.select("name", A.subquery("_User"), key: "password", negated: true), "password"))
            for attack in attacks {
                // Credentials are in no master-key condition either (issue 30's second review).
                let master = try await api.find("Probe", ["where": attack.where], headers: Headers.master)
                A.expectForbiddenField(master, attack.field, "master: \(attack.where)")
                for parameters in [["where": attack.where], ["where": attack.where, "count": "1", "limit": "0"]] {
                    let reply = try await api.find("Probe", parameters, headers: people.bobSession)
                    A.expectForbiddenField(reply, attack.field, attack.where)
                }
                // Anonymous callers too.
                A.expectForbiddenField(try await api.find("Probe", ["where": attack.where]), attack.field, attack.where)
            }
        }
    }

    /// `user` in users named like a Probe that points at a user `query` matches.
    static func threeLevels(_ query: String) -> String {
        let probes = A.subquery("Probe", A.inQuery("user", query))
        return A.inQuery("user", A.subquery("_User", A.select("username", probes, key: "name")))
    }

    /// Internal classes (codes, outbox, upload tokens) named in a subquery: refused as at the
    /// top level. (The deploy records are no master key's to plant rows in: DeployClassAttackTests.)
    @Test(arguments: ["_VerificationCode", "_Outbox", "_FileToken"])
    func internalClassesCantBeReachedThroughSubqueries(className: String) async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            // A row only the master key may read; the test plants it with the master key.
            let planted = try await api.create(className, ["tag": "planted"], headers: Headers.master)
            let probe = try await api.create(
                "Probe", ["name": "planted", "ref": pointer(className, planted)], headers: people.bobSession)
            let inner = A.subquery(className, #"{"tag":"planted"}"#)
            let attacks = [
                A.select("name", inner, key: "tag"), A.select("name", inner, key: "tag", negated: true),
                A.inQuery("ref", inner), A.inQuery("ref", inner, negated: true),
                A.select("name", A.subquery("Probe", A.inQuery("ref", inner)), key: "name"),
            ]
            let live = try await A.ids(api, "Probe", where: attacks[0], headers: Headers.master)
            #expect(live.ids == [probe], "master precondition: the planted row is found")
            for attack in attacks {
                #expect(try await api.find("Probe", ["where": attack], headers: Headers.master).status == .ok, "\(attack)")
                A.expectInternalRefused(try await api.find("Probe", ["where": attack], headers: people.bobSession), attack)
                A.expectInternalRefused(try await api.find("Probe", ["where": attack, "count": "1"]), attack)
            }
        }
    }

    /// An object only ada may read doesn't exist for bob's subqueries: every operator answers
    /// (results and count) what it would without that object.
    @Test func subqueriesSeeOnlyWhatTheACLLetsTheCallerRead() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let secret = try await api.create(
                "Secret", ["pin": 4711, "ACL": .object([people.ada: ["read": true, "write": true]])],
                headers: people.adaSession)
            // Bob's probe carries his guess at the pin and a pointer at the secret.
            let probe = try await api.create(
                "Probe", ["guess": 4711, "secret": pointer("Secret", secret)], headers: people.bobSession)
            #expect(try await api.get("/1.1/classes/Secret/\(secret)", headers: people.bobSession).text == "{}")
            let inner = A.subquery("Secret", #"{"pin":{"$gt":4000}}"#)
            // (query, what it answers with the secret, what it answers without it)
            let cases: [(String, [String], [String])] = [
                (A.select("guess", inner, key: "pin"), [probe], []),
                (A.select("guess", inner, key: "pin", negated: true), [], [probe]),
                (A.inQuery("secret", inner), [probe], []),
                (A.inQuery("secret", inner, negated: true), [], [probe]),
                (A.inQuery("secret", A.subquery("Secret")), [probe], []),
                // Nested: the ACL applies at the inner level too.
                (A.select("guess", A.subquery("Probe", A.inQuery("secret", inner)), key: "guess"), [probe], []),
            ]
            for (attack, withSecret, withoutSecret) in cases {
                let master = try await A.ids(api, "Probe", where: attack, headers: Headers.master)
                #expect(master.ids == withSecret, "master precondition: \(attack)")
                // Ada reads her secret: she sees what the master key sees.
                #expect(try await A.ids(api, "Probe", where: attack, headers: people.adaSession).ids == withSecret, "\(attack)")
                for headers in [people.bobSession, Headers.client] {
                    let seen = try await A.ids(api, "Probe", where: attack, headers: headers)
                    #expect(seen.ids == withoutSecret, "the secret leaks through \(attack)")
                    #expect(seen.count == Int64(withoutSecret.count), "the count leaks through \(attack)")
                }
            }
        }
    }

    /// An ACL-private external file's url (and name) can't be learned by a subquery over `_File`.
    @Test func aPrivateFilesURLCantBeProbedThroughSubqueries() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let url = "https://example.com/private/ada-scan.png"
            let file = try await api.post(
                "/1.1/files", headers: people.adaSession,
                ["name": "ada-scan.png", "url": .string(url), "ACL": .object([people.ada: ["read": true]])])
            #expect(file.status == .created, "\(file)")
            // Bob's probe holds his guesses at the file's name and url.
            let probe = try await api.create("Probe", ["name": "ada-scan.png", "u": .string(url)], headers: people.bobSession)
            let prefixQuery = A.subquery("_File", #"{"url":{"$regex":"^https://example\\.com/private/"}}"#)
            let attacks = [
                A.select("name", prefixQuery, key: "name"),
                A.select("u", A.subquery("_File"), key: "url"),
                A.select("u", A.subquery("_File", #"{"name":"ada-scan.png"}"#), key: "url"),
            ]
            for attack in attacks {
                #expect(try await A.ids(api, "Probe", where: attack, headers: Headers.master).ids == [probe], "master: \(attack)")
                #expect(try await A.ids(api, "Probe", where: attack, headers: people.adaSession).ids == [probe], "ada: \(attack)")
                let seen = try await A.ids(api, "Probe", where: attack, headers: people.bobSession)
                #expect(seen.ids.isEmpty && seen.count == 0, "the private file leaks through \(attack): \(seen)")
                let dontSelect = attack.replacingOccurrences(of: "$select", with: "$dontSelect")
                let negated = try await A.ids(api, "Probe", where: dontSelect, headers: people.bobSession)
                #expect(negated.ids == [probe], "the private file leaks through $dontSelect of \(attack)")
            }
        }
    }

    /// `$relatedTo` an owner bob can't read answers nothing, not its relation's members.
    @Test func relatedToAnOwnerTheCallerCantReadIsEmpty() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let member = try await api.create("Member", ["name": "public member"], headers: people.adaSession)
            let group = try await api.create(
                "Group",
                [
                    "name": "ada's circle", "ACL": .object([people.ada: ["read": true, "write": true]]),
                    "members": op("AddRelation", ["objects": [pointer("Member", member)]]),
                ], headers: people.adaSession)
            let related = #"{"$relatedTo":{"object":{"__type":"Pointer","className":"Group","objectId":"\#(group)"},"key":"members"}}"#
            #expect(try await A.ids(api, "Member", where: related, headers: Headers.master).ids == [member], "master precondition")
            #expect(try await A.ids(api, "Member", where: related, headers: people.adaSession).ids == [member])
            // The member is public, but bob learns nothing of the group's membership.
            #expect(try await api.fetch("Member", member, headers: people.bobSession)["name"] == "public member")
            for headers in [people.bobSession, Headers.client] {
                let seen = try await A.ids(api, "Member", where: related, headers: headers)
                #expect(seen.ids.isEmpty && seen.count == 0, "relation members leak: \(seen)")
            }
        }
    }

    /// Sorting users by a hidden field orders them by it, an oracle too: refused.
    @Test func orderingByAHiddenFieldIsRefused() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            _ = try await api.create("Probe", ["name": "ada", "user": pointer("_User", people.ada)], headers: people.bobSession)
            A.expectForbiddenField(try await api.find("_User", ["order": "sessionToken"], headers: Headers.master), "sessionToken", "master")
            for (path, order, field) in [
                ("/1.1/classes/_User", "sessionToken", "sessionToken"), ("/1.1/users", "-sessionToken", "sessionToken"),
                ("/1.1/classes/_User", "-password", "password"), ("/1.1/classes/_User", "username,_failedLogins", "_failedLogins"),
                ("/1.1/users", "salt", "salt"),
            ] {
                for headers in [people.bobSession, Headers.client] {
                    let reply = try await api.get(path + queryString(["order": order]), headers: headers)
                    A.expectForbiddenField(reply, field, "\(path) order=\(order)")
                }
            }
            // Inside a subquery's where, the order of the outer query isn't the way round it.
            let inner = A.subquery("_User", #"{"sessionToken":{"$gt":"5"}}"#)
            A.expectForbiddenField(
                try await api.find("Probe", ["where": A.inQuery("user", inner), "order": "name"], headers: people.bobSession),
                "sessionToken")
        }
    }

    /// A pointer a client plants at an internal-class row isn't expanded by `include`.
    @Test func includeThroughAPlantedPointerToAnInternalClassStaysAPointer() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            // An outbox message as the server writes one; its id got with the master key.
            let message = try await api.create(
                "_Outbox", ["to": "+8613800000000", "text": "Your login code is 246810."], headers: Headers.master)
            let link = try await api.create("Link", ["p": pointer("_Outbox", message)], headers: people.bobSession)
            let stored = try await api.fetch("_Outbox", message, headers: Headers.master)
            #expect(stored["text"] == "Your login code is 246810.", "master precondition: \(stored)")
            for headers in [people.bobSession, Headers.client] {
                let found = try await api.find("Link", ["include": "p"], headers: headers)
                #expect(found.status == .ok && found.results.first?["p"] == pointer("_Outbox", message), "\(found)")
                let fetched = try await api.get("/1.1/classes/Link/\(link)?include=p", headers: headers)
                #expect(fetched.status == .ok && fetched["p"] == pointer("_Outbox", message), "\(fetched)")
            }
        }
    }
}
