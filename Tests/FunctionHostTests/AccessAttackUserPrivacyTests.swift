import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 22's attacks on users: another user's private fields (authData with its OAuth token,
/// email, phone number) answered to anyone, a takeover through unverified authData, password
/// hashes in fetchWhenSave answers, every user listed by a find, and CQL as an oracle.
@Suite struct AccessAttackUserPrivacyTests {
    typealias A = AccessAttack

    /// Ada's linked weixin account, with the OAuth access token an attacker would reuse.
    static let adaWeixin: JSONValue = ["openid": "wx-ada", "access_token": "oauth-secret-of-ada", "expires_in": 7200]

    /// Ada with an email, a phone number and a linked account; the link is written with the
    /// master key, as how it got there doesn't matter to what others see.
    static func adaWithPrivateFields(_ api: API) async throws -> AccessAttack.People {
        let people = try await A.people(api, adaFields: ["email": "ada@example.com", "mobilePhoneNumber": "+8613912345678"])
        let linked = try await api.put("/1.1/users/\(people.ada)", headers: Headers.master, ["authData": ["weixin": adaWeixin]])
        #expect(linked.status == .ok, "linking ada's weixin: \(linked)")
        let full = try await api.get("/1.1/users/\(people.ada)", headers: Headers.master)
        for field in A.userPrivateFields {
            #expect(full[field] != nil, "master precondition: ada has \(field): \(full)")
        }
        #expect(full["authData"]?["weixin"]?["access_token"] == "oauth-secret-of-ada", "\(full)")
        return people
    }

    @Test func anotherUsersPrivateFieldsAreNeverAnswered() async throws {
        try await TestServer.run { api in
            let people = try await Self.adaWithPrivateFields(api)
            let post = try await api.create("Post", ["author": pointer("_User", people.ada)], headers: people.bobSession)
            for headers in [people.bobSession, Headers.client] {
                var views: [(String, JSONValue?)] = []
                for path in ["/1.1/users/\(people.ada)", "/1.1/classes/_User/\(people.ada)"] {
                    let reply = try await api.get(path, headers: headers)
                    #expect(reply.status == .ok, "\(path): \(reply)")
                    views.append((path, reply.json))
                }
                // Through include, on a find and on a fetch.
                let found = try await api.find("Post", ["include": "author"], headers: headers)
                views.append(("find include", found.results.first?["author"]))
                let fetched = try await api.get("/1.1/classes/Post/\(post)?include=author", headers: headers)
                views.append(("fetch include", fetched["author"]))
                for (path, view) in views {
                    #expect(view?["username"] == "ada", "\(path) still shows the public part: \(String(describing: view))")
                    let leaked = fieldNames(view).intersection(A.userPrivateFields + A.alwaysHiddenUserFields)
                    #expect(leaked.isEmpty, "\(path) answers ada's \(leaked.sorted()) to another caller")
                }
            }
            // Ada herself still sees her own private fields, however she asks.
            for path in ["/1.1/users/me", "/1.1/users/\(people.ada)", "/1.1/classes/_User/\(people.ada)"] {
                let own = try await api.get(path, headers: people.adaSession)
                #expect(own.status == .ok, "\(path): \(own)")
                for field in A.userPrivateFields { #expect(own[field] != nil, "\(path) lacks ada's own \(field): \(own)") }
                #expect(own["email"] == "ada@example.com" && own["authData"]?["weixin"]?["openid"] == "wx-ada", "\(own)")
                #expect(own["password"] == nil && own["_failedLogins"] == nil && own["salt"] == nil, "\(own)")
            }
        }
    }

    /// With ada's openid (which any client could read before), `POST /users` with her authData
    /// logged in as her: no provider is trusted until something verifies it.
    @Test func unverifiedAuthDataDoesntLogInAsItsOwner() async throws {
        try await TestServer.run { api in
            let people = try await Self.adaWithPrivateFields(api)
            let takeover = try await api.post("/1.1/users", ["authData": ["weixin": ["openid": "wx-ada", "access_token": "guess"]]])
            #expect(
                takeover.status == .badRequest && takeover["code"] == 251
                    && takeover["error"]?.stringValue?.hasPrefix("The weixin account can't be verified: ") == true,
                "an unverified weixin login should be refused (400/251): \(takeover)")
            #expect(takeover.objectId != people.ada && takeover["sessionToken"] == nil, "logged in as ada: \(takeover)")
        }
    }

    /// A password change answered with fetchWhenSave never carries the hash (nor salt or the
    /// failed-login count), on any path.
    @Test func aPasswordChangeNeverAnswersTheHash() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            // A failed login makes bob's _failedLogins and _loginAttempts stored fields.
            _ = try await api.post("/1.1/login", ["username": "bob", "password": "wrong"])
            let paths = ["/1.1/users/\(people.bob)", "/1.1/classes/_User/\(people.bob)"]
            var answers: [(String, Reply?)] = []
            for (index, path) in paths.enumerated() {
                let reply = try await api.put(
                    path + "?fetchWhenSave=true", headers: people.bobSession, ["password": .string("new-\(index)")])
                #expect(reply.status == .ok, "\(path): \(reply)")
                answers.append((path, reply))
            }
            let batch = try await api.post(
                "/1.1/batch", headers: people.bobSession,
                [
                    "requests": [
                        [
                            "method": "PUT", "path": .string("/1.1/users/\(people.bob)?fetchWhenSave=true"),
                            "body": ["password": "new-batch"],
                        ]
                    ]
                ])
            let item = batch.json?.arrayValue?.first?["success"]
            #expect(item != nil, "\(batch)")
            for (path, reply) in answers {
                for field in ["password", "salt", "_failedLogins", "_loginAttempts"] {
                    #expect(reply?[field] == nil, "\(path) answers \(field): \(String(describing: reply))")
                }
            }
            for field in ["password", "salt", "_failedLogins", "_loginAttempts"] {
                #expect(item?[field] == nil, "batch answers \(field): \(String(describing: item))")
            }
            // The change itself happened.
            #expect(try await api.post("/1.1/login", ["username": "bob", "password": "new-batch"]).status == .ok)
        }
    }

    /// `_User` find is closed: a signed-in client finds only its own row, an anonymous one
    /// nothing; counts agree; the master key finds everyone.
    @Test func findingUsersAnswersOnlyTheCallersOwnRow() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let everyone = [people.ada, people.bob].sorted()
            let all = try await A.ids(api, "_User", where: "{}", headers: Headers.master)
            #expect(all.ids == everyone && all.count == 2, "master precondition: \(all)")
            for path in ["/1.1/classes/_User", "/1.1/users"] {
                for (headers, own) in [(people.bobSession, [people.bob]), (people.adaSession, [people.ada]), (Headers.client, [])] {
                    let reply = try await api.get(path + queryString(["count": "1"]), headers: headers)
                    #expect(reply.status == .ok, "\(path): \(reply)")
                    #expect(reply.results.compactMap { $0["objectId"]?.stringValue } == own, "\(path) lists others: \(reply)")
                    #expect(reply["count"]?.intValue == Int64(own.count), "\(path) counts others: \(reply)")
                }
                // Naming another user finds nothing.
                let named = try await api.get(path + queryString(["where": #"{"username":"ada"}"#]), headers: people.bobSession)
                #expect(named.status == .ok && named.results.isEmpty, "\(path): \(named)")
            }
        }
    }

    /// CQL is another way to write a query: hidden fields are refused in its where and order
    /// by, and `_User` answers only the caller's own row.
    @Test func cqlIsNoWayAroundHiddenFieldsOrClosedUserFind() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let prefix = String(people.adaToken.prefix(8))
            func cql(_ statement: String, _ headers: HTTPFields) async throws -> Reply {
                try await api.get("/1.1/cloudQuery" + queryString(["cql": statement]), headers: headers)
            }
            let probe = "select * from _User where sessionToken like '\(prefix)%'"
            let live = try await cql("select * from _User where username = 'ada'", Headers.master)
            #expect(live.results.compactMap { $0["objectId"]?.stringValue } == [people.ada], "master precondition: \(live)")
            let attacks = [
                (probe, "sessionToken"), ("select count(*) from _User where sessionToken like '\(prefix)%'", "sessionToken"),
                ("select * from _User where password = 'x'", "password"),
                ("select * from _User where username = 'ada' and password is exists", "password"),
                ("select * from _User order by sessionToken", "sessionToken"),
                ("select * from _User where _failedLogins > 0", "_failedLogins"),
                ("select * from _User where _loginAttempts > 0", "_loginAttempts"),
            ]
            // Credentials are no one's to filter or sort on, the master key's included (issue 30's
            // second review: a `$gte` walk read a session token in 131 queries).
            for (statement, field) in attacks {
                for headers in [people.bobSession, Headers.client, Headers.master] {
                    A.expectForbiddenField(try await cql(statement, headers), field, statement)
                }
            }
            for condition in [
                #"{"sessionToken":{"$gte":"\#(prefix)"}}"#, #"{"password":{"$regex":"^pbkdf2"}}"#, #"{"salt":{"$exists":true}}"#,
            ] {
                let reply = try await api.get(
                    "/1.1/classes/_User" + queryString(["where": condition, "count": "1", "limit": "0"]), headers: Headers.master)
                expectError(reply, code: 119, status: .forbidden)
            }
            for (headers, own) in [(people.bobSession, [people.bob]), (Headers.client, [])] {
                let all = try await cql("select * from _User", headers)
                #expect(all.status == .ok && all.results.compactMap { $0["objectId"]?.stringValue } == own, "\(all)")
                let count = try await cql("select count(*) from _User", headers)
                #expect(count.status == .ok && count["count"]?.intValue == Int64(own.count), "\(count)")
            }
        }
    }
}
