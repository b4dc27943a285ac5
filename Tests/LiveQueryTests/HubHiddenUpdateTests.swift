import DataAPI
import Foundation
import JSON
import LiveQuery
import TestSupport
import Testing

/// Attack: an `update` whose changed keys the subscriber can't see still says that something
/// changed, and when: on `_User`, with `find` open, every login's bookkeeping write told every
/// subscriber who logged in. An update with no visible changed key but `updatedAt` is not sent
/// (any class); `enter`, `leave` and the user's own `login` still are.
@Suite struct HubHiddenUpdateTests {
    @Test func anUpdateOfHiddenFieldsOnlyIsNotSent() async throws {
        try await HubFixture.run { f in
            _ = try await f.data.updateClassSettings("Card", with: ["schema": ["pin": ["hidden": true]]], caller: HubFixture.master)
            _ = try await f.subscribe("Card", where: ["title": ["$exists": true]])
            let sink = await f.connect()
            let card = try await f.data.create("Card", body: ["title": "a", "pin": "1"], caller: HubFixture.anyone)
            _ = try await f.data.update("Card", id: card.objectId, body: ["pin": "2"], caller: HubFixture.anyone)
            _ = try await f.data.update("Card", id: card.objectId, body: ["title": "b", "pin": "3"], caller: HubFixture.anyone)
            #expect(await sink.json(1)?["op"] == "create")
            let second = try #require(await sink.json(2))
            #expect(second["op"] == "update")
            #expect(second["updatedKeys"] == ["title"])
            #expect(sink.events.count == 2)
        }
    }

    @Test func anotherUsersLoginSendsNothingAndTheOwnLoginStillArrives() async throws {
        try await HubFixture.run { f in
            _ = try await f.data.updateClassSettings("_User", with: ["permissions": ["find": ["*": true]]], caller: HubFixture.master)
            let ada = try await f.user("ada")
            let bob = try await f.user("bob")
            let bobId = try #require(bob.userId)
            _ = try await f.subscribe("_User", id: "livequery-ada", as: ada)
            let sink = await f.connect("livequery-ada")
            _ = try await f.accounts.logIn(["username": "bob", "password": "secret-1"])
            _ = try await f.accounts.logIn(["username": "ada", "password": "secret-1"])
            _ = try await f.data.update("_User", id: bobId, body: ["nickname": "B"], caller: HubFixture.master)
            // Ada's first event is her own login; the next, bob's visible change. Bob's login
            // and the logins' writes sent nothing.
            #expect(await sink.json(1)?["op"] == "login")
            let second = try #require(await sink.json(2))
            #expect(second["op"] == "update" && second["updatedKeys"] == ["nickname"], "\(second)")
            #expect(sink.events.count == 2)
        }
    }
}
