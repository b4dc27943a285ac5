import DataAPI
import JSON
import LiveQuery
import TestSupport
import Testing

/// The queue of committed changes between the feed and delivery is bounded: a change that finds
/// it full is not silently dropped; the connections of its class's subscriptions are told they
/// lost events (the socket closes with 4121 and the SDKs subscribe again), and it is counted.
@Suite struct HubBacklogTests {
    @Test func aChangePastTheBacklogEndsTheConnectionsThatWouldHaveHadIt() async throws {
        var limits = LiveQueryLimits()
        limits.changeBacklog = 2
        let gate = Gate()
        try await HubFixture.run(limits: limits, hooks: HeldEventHooks(gate: gate, className: "Todo")) { f in
            _ = try await f.subscribe("Todo", id: "livequery-todo")
            _ = try await f.subscribe("Note", id: "livequery-note")
            let todos = await f.connect("livequery-todo")
            let notes = await f.connect("livequery-note")
            var arrivals = gate.arrivals.makeAsyncIterator()
            // The first Todo's event is held in its hook: delivery stops there.
            _ = try await f.data.create("Todo", body: ["n": 0], caller: HubFixture.anyone)
            await arrivals.next()
            // Two more fill the backlog; the fourth finds it full.
            for n in 1...3 { _ = try await f.data.create("Todo", body: ["n": .int(Int64(n))], caller: HubFixture.anyone) }
            #expect(await todos.lossReported())
            #expect(f.hub.statistics.changesLost == 1 && f.hub.statistics.lostEventConnections == 1)
            // Its connection was detached; the other class's connection was not touched.
            #expect(f.hub.statistics.connections == 1)
            gate.open()
            _ = try await f.data.create("Note", body: ["n": 9], caller: HubFixture.anyone)
            #expect(await notes.json(1)?["object"]?["n"] == 9)
            #expect(notes.events.count == 1)
        }
    }
}

/// Hooks holding every `afterLiveQueryEvent` of one class at a gate until the test opens it: a
/// delivery that can't go on, without timing.
struct HeldEventHooks: WriteHooks {
    let gate: Gate
    let className: String

    func snapshot(in environment: EnvironmentName) -> any HookSnapshot { Snapshot(hooks: self) }

    private struct Snapshot: HookSnapshot {
        let hooks: HeldEventHooks
        func contains(_ kind: HookKind, _ className: String) -> Bool {
            kind == .afterLiveQueryEvent && className == hooks.className
        }
        func runBefore(_ kind: HookKind, _ event: ObjectEvent) async throws -> ObjectEvent {
            await hooks.gate.pass()
            return event
        }
        func runAfter(_ kind: HookKind, _ event: ObjectEvent) async {}
        func runAfterAnswering(_ kind: HookKind, _ event: ObjectEvent) async throws {}
    }
}
