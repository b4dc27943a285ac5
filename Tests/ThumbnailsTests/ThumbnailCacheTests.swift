import Foundation
import TestSupport
import Testing
import Thumbnails

/// The slots thumbnails are made in, and the disk cache they are kept in.
@Suite struct ThumbnailCacheTests {
    @Test func aWaiterGetsTheNextFreeSlot() async throws {
        let gate = ThumbnailGate(slots: 1, maxWait: .seconds(600))
        #expect(await gate.enter())
        let waiter = Task { await gate.enter() }
        #expect(await gate.untilWaiting(1, within: .seconds(60)), "no request waited for the slot")
        gate.leave()
        #expect(await waiter.value)
        #expect(gate.busySlots == 1)
        gate.leave()
        #expect(gate.busySlots == 0)
    }

    @Test func aWaitPastItsLimitIsRefused() async throws {
        let gate = ThumbnailGate(slots: 2, maxWait: .milliseconds(1))
        #expect(await gate.enter())
        #expect(await gate.enter())
        // The slots are never given back: the wait can only end by its limit.
        #expect(await gate.enter() == false)
        gate.leave()
        #expect(await gate.enter())
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
