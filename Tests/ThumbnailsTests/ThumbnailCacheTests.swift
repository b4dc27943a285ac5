import Foundation
import TestSupport
import Testing
import Thumbnails

/// The slots thumbnails are made in, and the disk cache they are kept in.
@Suite struct ThumbnailCacheTests {
    @Test func aWaiterGetsTheNextFreeSlot() async throws {
        let gate = ThumbnailGate(slots: 1, maxWait: .seconds(600))
        #expect(await gate.enter(client: "a"))
        let waiter = Task { await gate.enter(client: "a") }
        #expect(await gate.untilWaiting(1, within: .seconds(60)), "no request waited for the slot")
        gate.leave(client: "a")
        #expect(await waiter.value)
        #expect(gate.busySlots == 1)
        gate.leave(client: "a")
        #expect(gate.busySlots == 0)
    }

    @Test func aWaitPastItsLimitIsRefused() async throws {
        let gate = ThumbnailGate(slots: 2, maxWait: .milliseconds(1))
        #expect(await gate.enter(client: "a"))
        #expect(await gate.enter(client: "b"))
        // The slots are never given back: the wait can only end by its limit.
        #expect(await gate.enter(client: "c") == false)
        gate.leave(client: "a")
        #expect(await gate.enter(client: "a"))
    }

    /// `body`'s value, or nil when it takes longer than `limit` (a wait that should end at once
    /// fails the test instead of hanging it).
    static func within<Value: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> Value) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func oneClientHoldsAtMostItsShareOfTheSlots() async throws {
        #expect(ThumbnailGate(slots: 1, maxWait: .zero).slotsPerClient == 1)
        #expect(ThumbnailGate(slots: 2, maxWait: .zero).slotsPerClient == 1)
        #expect(ThumbnailGate(slots: 3, maxWait: .zero).slotsPerClient == 2)
        #expect(ThumbnailGate(slots: 4, maxWait: .zero).slotsPerClient == 2)
        let gate = ThumbnailGate(slots: 2, maxWait: .seconds(600))
        #expect(await gate.enter(client: "a"))
        // A second slot is free, but not for "a": it waits for its own.
        let second = Task { await gate.enter(client: "a") }
        #expect(await gate.untilWaiting(1, within: .seconds(60)), "a's second request did not wait")
        #expect(gate.busySlots == 1)
        // Another client takes the free slot at once, and a slot it gives back is not a's.
        #expect(await Self.within(.seconds(60)) { await gate.enter(client: "b") } == true)
        gate.leave(client: "b")
        #expect(gate.busySlots == 1 && gate.slots(heldBy: "a") == 1)
        // a's own slot given back goes to a's waiting request.
        gate.leave(client: "a")
        #expect(await second.value)
        #expect(gate.slots(heldBy: "a") == 1 && gate.busySlots == 1)
        gate.leave(client: "a")
        #expect(gate.busySlots == 0 && gate.slots(heldBy: "a") == 0)
        // With no wait allowed, a client at its share is refused at once.
        let refusing = ThumbnailGate(slots: 2, maxWait: .zero)
        #expect(await refusing.enter(client: "a"))
        #expect(await refusing.enter(client: "a") == false)
        #expect(await refusing.enter(client: "b"))
    }

    /// Two clients holding both slots, with more requests queued first: a third client's request
    /// takes the next slot either frees (the one giving it back counts as still running it).
    @Test func aFreedSlotGoesToTheClientRunningTheFewest() async throws {
        let gate = ThumbnailGate(slots: 2, maxWait: .seconds(600))
        #expect(await gate.enter(client: "a"))
        #expect(await gate.enter(client: "b"))
        var waiting: [(client: String, task: Task<Bool, Never>)] = []
        for (index, client) in ["a", "b", "c"].enumerated() {
            waiting.append((client, Task { await gate.enter(client: client) }))
            #expect(await gate.untilWaiting(index + 1, within: .seconds(60)), "\(client) did not wait")
        }
        gate.leave(client: "a")
        #expect(await waiting[2].task.value, "c did not get a's slot")
        #expect(gate.slots(heldBy: "c") == 1 && gate.slots(heldBy: "a") == 0)
        // Then the earliest of those running none: a (b counts the slot it gives back).
        gate.leave(client: "b")
        #expect(await waiting[0].task.value)
        #expect(gate.slots(heldBy: "a") == 1 && gate.slots(heldBy: "b") == 0)
        gate.leave(client: "c")
        #expect(await waiting[1].task.value)
        #expect(gate.slots(heldBy: "b") == 1 && gate.busySlots == 2)
        gate.leave(client: "a")
        gate.leave(client: "b")
        #expect(gate.busySlots == 0)
    }

    /// The queue is bounded (8 a slot), and one client has at most half of it: past that its
    /// requests are refused at once, while another client still finds a place.
    @Test func oneClientHasAtMostItsShareOfTheQueue() async throws {
        let gate = ThumbnailGate(slots: 1, maxWait: .seconds(600))
        #expect(gate.maxWaiters == 8 && gate.waitersPerClient == 4)
        #expect(await gate.enter(client: "a"))
        var queued: [Task<Bool, Never>] = []
        for count in 1...4 {
            queued.append(Task { await gate.enter(client: "a") })
            #expect(await gate.untilWaiting(count, within: .seconds(60)))
        }
        #expect(await Self.within(.seconds(60)) { await gate.enter(client: "a") } == false, "a's fifth waiter was not refused at once")
        for count in 5...8 {
            queued.append(Task { await gate.enter(client: "b\(count)") })
            #expect(await gate.untilWaiting(count, within: .seconds(60)))
        }
        // The queue is full: anyone is refused at once.
        #expect(await Self.within(.seconds(60)) { await gate.enter(client: "c") } == false, "a ninth waiter was not refused at once")
        // Every one queued gets the slot in turn (handed over within `leave`): a's waiters and
        // the others' alternate, each client running none going before the one giving it back.
        var holder = "a"
        var order: [String] = []
        for _ in queued {
            gate.leave(client: holder)
            holder = try #require(["a", "b5", "b6", "b7", "b8"].first { gate.slots(heldBy: $0) > 0 })
            order.append(holder)
        }
        gate.leave(client: holder)
        #expect(order == ["b5", "a", "b6", "a", "b7", "a", "b8", "a"], "\(order)")
        for task in queued { #expect(await task.value) }
        #expect(gate.busySlots == 0)
    }

    /// Keeps `count` bytes under `name`.
    static func keep(_ cache: ThumbnailCache, _ name: String, bytes count: Int) throws -> ThumbnailCache.Hit {
        let temporary = cache.temporaryPath()
        try Data(repeating: 7, count: count).write(to: URL(fileURLWithPath: temporary))
        return try cache.keep(temporary, as: name, format: .png)
    }

    static func name(_ key: String) -> String {
        ThumbnailCache.name(fileKey: key, version: "v1", spec: ThumbnailSpec(mode: 2, width: 10))
    }

    @Test func theLeastRecentlyUsedAreEvictedPastTheSize() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let url = URL(fileURLWithPath: directory).appendingPathComponent("thumbnails")
        let cache = try ThumbnailCache(directory: url, maxBytes: 1000)
        let (a, b, c, d) = (Self.name("a"), Self.name("b"), Self.name("c"), Self.name("d"))
        #expect(a != b && a.count == 64)
        #expect(ThumbnailCache.name(fileKey: "a", version: "v1", spec: ThumbnailSpec(mode: 2, width: 10, ignoresErrors: true)) == a)
        // Another file stored under the key later has other thumbnails.
        #expect(ThumbnailCache.name(fileKey: "a", version: "v2", spec: ThumbnailSpec(mode: 2, width: 10)) != a)
        _ = try Self.keep(cache, a, bytes: 400)
        _ = try Self.keep(cache, b, bytes: 400)
        // `a` is used again: `b` is now the oldest.
        let hit = try #require(cache.open(a))
        #expect(hit.size == 400 && hit.format == .png)
        #expect(try hit.handle.readToEnd()?.count == 400)
        _ = try Self.keep(cache, c, bytes: 400)
        #expect(cache.names == [a, c] && cache.totalBytes == 800)
        #expect(cache.open(b) == nil)
        // One larger than the whole cache is still answered, then not kept.
        let large = try Self.keep(cache, d, bytes: 5000)
        #expect(try large.handle.readToEnd()?.count == 5000)
        #expect(cache.names == [a, c] && cache.totalBytes == 800)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0 != ".incoming" }
        #expect(onDisk.count == cache.names.count)

        // A restart finds what is kept, and clears what a crash left half-written.
        try Data([1]).write(to: url.appendingPathComponent(".incoming/partial"))
        _ = try Self.keep(cache, b, bytes: 100)
        let reopened = try ThumbnailCache(directory: url, maxBytes: 1000)
        #expect(reopened.names == cache.names && reopened.totalBytes == cache.totalBytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(".incoming").path).isEmpty)
        // A smaller size at restart evicts down to it.
        let smaller = try ThumbnailCache(directory: url, maxBytes: 450)
        #expect(smaller.totalBytes <= 450)
    }
}
