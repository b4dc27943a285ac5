import DataAPI
import JSON
import LiveQuery
import TestSupport
import Testing

/// Attack test (the LiveQuery review's first finding): a subscription made of many backtracking
/// `$regex` patterns gets one small budget for all of them per change, counts a pattern still
/// running past it as no match, and every other subscriber's event still arrives; the attacker's
/// own subscription goes on matching what its patterns match quickly. The hub's count of
/// evaluations the budget cut short shows it was the budget that stopped them.
@Suite struct HubRegexBudgetTests {
    @Test func backtrackingPatternsMatchNothingAndHoldNoOneElsesEvents() async throws {
        try await HubFixture.run { f in
            // Distinct patterns, so no cached answer short-cuts them; each backtracks without
            // end on a run of "a"s followed by "!", and matches "q<i>" at once.
            let poisoned: [JSONValue] = (0..<100).map { .object(["s": ["$regex": .string("^(a+)+$|q\($0)")]]) }
            _ = try await f.subscribe("Doc", where: ["$or": .array(poisoned)], id: "livequery-attacker")
            _ = try await f.subscribe("Doc", id: "livequery-victim")
            let attacker = await f.connect("livequery-attacker")
            let victim = await f.connect("livequery-victim")
            let poison = try await f.data.create("Doc", body: ["s": .string(String(repeating: "a", count: 40) + "!")], caller: HubFixture.anyone)
            let marker = try await f.data.create("Doc", body: ["s": "q7"], caller: HubFixture.anyone)
            #expect(await victim.json(1)?["object"]?["objectId"]?.stringValue == poison.objectId)
            #expect(await victim.json(2)?["object"]?["objectId"]?.stringValue == marker.objectId)
            // The attacker's first event is the marker: the poison matched none of its patterns.
            #expect(await attacker.json(1)?["object"]?["objectId"]?.stringValue == marker.objectId)
            #expect(attacker.events.count == 1)
            // The shared budget did the cutting, not each pattern's own 50 ms: with one budget per
            // subscription and change, all 100 patterns were cut short on the poison (the first
            // ran 10 ms, the rest found it spent). Without the budget none would count.
            #expect(f.hub.statistics.regexEvaluationsCutShort >= 100, "\(f.hub.statistics)")
        }
    }
}
