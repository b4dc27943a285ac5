import DataAPI
import Foundation
import JSON
import LiveQuery
import TestSupport
import Testing

/// Attack: a subscription made with a user's session outliving the session. When the user's
/// session token changes (`refreshSessionToken`, a password change or reset, a dialect's
/// logout) the subscriptions made with the old token end before the next change is delivered;
/// one made with the new token goes on; a deleted user's end too.
@Suite struct HubSessionTests {
    /// A caller acting as `user` with its current session, as the routes make it.
    static func session(_ f: HubFixture, _ userId: String) async throws -> Caller {
        let user = try #require(try await f.data.storage(for: HubFixture.master).fetch("_User", id: userId))
        let token = try #require(user.fields["sessionToken"]?.stringValue)
        return Caller(isMaster: false, user: try #require(try await f.data.userJSON(forSessionToken: token, in: .production)))
    }

    /// Creates an open Todo and waits until `witness` has its event: every change before it
    /// has been delivered to every connection.
    static func write(_ f: HubFixture, _ n: Int, witness: RecordingSink) async throws {
        let todo = try await f.data.create("Todo", body: ["n": .int(Int64(n))], caller: HubFixture.anyone)
        var index = 1
        while let event = await witness.json(index) {
            if event["object"]?["objectId"]?.stringValue == todo.objectId { return }
            index += 1
        }
        Issue.record("the witness never heard Todo \(n)")
    }

    @Test func aChangedTokenEndsTheOldSessionsSubscriptionsAtOnce() async throws {
        try await HubFixture.run { f in
            let adaId = try #require(try await f.user("ada").userId)
            let ada = try await Self.session(f, adaId)
            _ = try await f.subscribe("Todo", id: "livequery-ada", as: ada)
            _ = try await f.subscribe("Todo", id: "livequery-witness")
            let sink = await f.connect("livequery-ada")
            let witness = await f.connect("livequery-witness")
            try await Self.write(f, 1, witness: witness)
            #expect(await sink.json(1)?["object"]?["n"] == 1)
            _ = try await f.accounts.refreshSessionToken(id: adaId, caller: ada)
            try await Self.write(f, 2, witness: witness)
            try await Self.write(f, 3, witness: witness)
            #expect(sink.events.count == 1, "the ended session's subscription heard \(sink.events.count - 1) more")
            #expect(f.hub.statistics.subscriptions == 1)
            // Subscribing with the new session works, and a write that keeps the token (a
            // field of the user) ends nothing.
            let renewed = try await Self.session(f, adaId)
            _ = try await f.subscribe("Todo", id: "livequery-ada", as: renewed)
            _ = try await f.data.update("_User", id: adaId, body: ["nickname": "A"], caller: HubFixture.master)
            try await Self.write(f, 4, witness: witness)
            #expect(await sink.json(2)?["object"]?["n"] == 4)
            // A password change ends that session too.
            _ = try await f.accounts.updatePassword(id: adaId, old: "secret-1", new: "secret-2", caller: renewed)
            try await Self.write(f, 5, witness: witness)
            try await Self.write(f, 6, witness: witness)
            #expect(sink.events.count == 2)
        }
    }

    /// Attack: someone holding an old token subscribes again and again around its change; a
    /// subscribe checked with the old session but added after the hub ended that session's
    /// subscriptions would outlive it. The token is read again once the subscription is in.
    @Test func aSubscribeWhoseSessionEndedWhileItWasCheckedIsRefused() async throws {
        try await HubFixture.run { f in
            let adaId = try #require(try await f.user("ada").userId)
            let ada = try await Self.session(f, adaId)
            _ = try await f.accounts.refreshSessionToken(id: adaId, caller: ada)
            let refused = await dataError { _ = try await f.subscribe("Todo", id: "livequery-ada", as: ada) }
            #expect(refused?.code == .userNotFound)
            #expect(f.hub.statistics.subscriptions == 0)
            // The new session subscribes as usual.
            _ = try await f.subscribe("Todo", id: "livequery-ada", as: try await Self.session(f, adaId))
            #expect(f.hub.statistics.subscriptions == 1)
        }
    }

    @Test func aDeletedUsersSubscriptionsEnd() async throws {
        try await HubFixture.run { f in
            let adaId = try #require(try await f.user("ada").userId)
            _ = try await f.subscribe("Todo", id: "livequery-ada", as: try await Self.session(f, adaId))
            _ = try await f.subscribe("Todo", id: "livequery-witness")
            let sink = await f.connect("livequery-ada")
            let witness = await f.connect("livequery-witness")
            try await f.data.delete("_User", id: adaId, caller: HubFixture.master)
            try await Self.write(f, 1, witness: witness)
            try await Self.write(f, 2, witness: witness)
            #expect(sink.events.isEmpty)
            #expect(f.hub.statistics.subscriptions == 1)
        }
    }
}
