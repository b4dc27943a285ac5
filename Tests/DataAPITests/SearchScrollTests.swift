import JSON
import TestSupport
import Testing

@testable import DataAPI

/// Scrolls (`sid` paging) keep their whole window in chunk rows of `_SearchScroll`, on a real
/// SQLite file and on PostgreSQL when `FUNCTIONHOST_TEST_DATABASE_URL` names a server.
@Suite("Search scrolls")
struct SearchScrollTests {
    typealias Engine = SearchServiceTests.Engine
    static let bob = SearchServiceTests.bob
    static let master = SearchServiceTests.master

    /// `count` posts about apples, written in one import transaction (cheap), then indexed.
    static func corpus(_ w: SearchServiceTests.World, count: Int) async throws -> Set<String> {
        let objects = (0..<count).map { index in
            StoredObject(
                className: "Post", objectId: ObjectID.make(), createdAt: "2024-01-01T00:00:00.000Z",
                updatedAt: "2024-01-01T00:00:00.000Z", fields: ["title": .string("apple pie \(index)"), "n": .int(Int64(index))])
        }
        let types: [String: FieldType] = ["title": .string, "n": .number]
        #expect(try await w.storage.insertExported("Post", objects: objects, fieldTypes: types, relations: []) == count)
        _ = try await w.service.setSearch("Post", fields: ["title"], caller: Self.master)
        return Set(objects.map(\.objectId))
    }

    /// The rows of `_SearchScroll`.
    static func rows(_ w: SearchServiceTests.World) async throws -> [StoredObject] {
        try await w.storage.find(ObjectQuery(className: SearchScrolls.className, limit: 1000))
    }

    @Test("A search past 5 000 matches pages through all of them with sid, each once", arguments: SearchServiceTests.engines)
    func wholeWindow(engine: Engine) async throws {
        try await SearchServiceTests.run(engine) { w in
            let all = try await Self.corpus(w, count: 6_000)
            var seen: [String] = []
            var answer = try await w.search("apple") { $0.limit = 1000 }
            var sid = try #require(answer.scrollID)
            // 6 000 bare ids are 3 chunks: the head and two chunk rows.
            #expect(try await Self.rows(w).count == 3)
            while true {
                #expect(answer.hits == 6_000)
                seen += answer.results.map(\.object.objectId)
                guard let next = answer.scrollID else { break }
                #expect(next == sid)
                // Another caller can't advance it, nor can this one with another query.
                await expectDataAPIErrorAsync(1) { _ = try await w.search("apple", as: SearchServiceTests.ann) { $0.scrollID = sid } }
                await expectDataAPIErrorAsync(102) { _ = try await w.search("pie") { $0.scrollID = sid } }
                answer = try await w.search("apple") { $0.limit = 1000; $0.scrollID = sid }
                sid = next
            }
            #expect(seen.count == 6_000)
            #expect(Set(seen) == all)
            #expect(answer.results.count == 1000)
            // Ended: refused, and the head and every chunk row are gone.
            await expectDataAPIErrorAsync(1) { _ = try await w.search("apple") { $0.limit = 1000; $0.scrollID = sid } }
            #expect(try await Self.rows(w).isEmpty)
        }
    }

    @Test("A deep page of an expired or someone else's scroll is refused; expired ones are swept with their chunks",
          arguments: SearchServiceTests.engines)
    func expiryAndBinding(engine: Engine) async throws {
        try await SearchServiceTests.run(engine) { w in
            _ = try await w.seed(public: 3)
            let entries = (0..<5_000).map { _ in "Post/" + ObjectID.make() }
            let scrolls = SearchScrolls(storage: w.storage, caller: Self.bob)
            let sid = try await scrolls.create(request: "r", entries: entries, position: 4_500, hits: 5_000)
            #expect(try await Self.rows(w).count == 3)
            await expectDataAPIErrorAsync(1) {
                _ = try await SearchScrolls(storage: w.storage, caller: SearchServiceTests.ann).open(sid, request: "r")
            }
            await expectDataAPIErrorAsync(1) { _ = try await SearchScrolls(storage: w.storage, caller: Self.master).open(sid, request: "r") }
            await expectDataAPIErrorAsync(1) { _ = try await scrolls.open(SearchScrolls.chunkID(sid, 1), request: "r") }
            var scroll = try await scrolls.open(sid, request: "r")
            #expect(try await scroll.entries.slice(4_500..<5_000) == Array(entries[4_500...]))
            // Five minutes after its last use it is unknown, and the next new scroll sweeps it whole.
            let later = SearchScrolls(storage: w.storage, caller: Self.bob, now: scrolls.now + SearchScrolls.lifetime + 1)
            await expectDataAPIErrorAsync(1) { _ = try await later.open(sid, request: "r") }
            let fresh = try await later.create(request: "r", entries: Array(entries.prefix(10)), position: 1, hits: 10)
            #expect(try await Self.rows(w).map(\.objectId) == [fresh])
        }
    }

    @Test("A caller's oldest scrolls are dropped past the bound, with their chunks", arguments: SearchServiceTests.engines)
    func boundDropsChunks(engine: Engine) async throws {
        try await SearchServiceTests.run(engine) { w in
            _ = try await w.seed(public: 1)
            let entries = (0..<(SearchScrolls.chunkSize + 1)).map { _ in "Post/" + ObjectID.make() }
            var sids: [String] = []
            for index in 0...SearchScrolls.maxPerCaller {
                let scrolls = SearchScrolls(storage: w.storage, caller: Self.bob, now: 1_000_000 + Double(index))
                sids.append(try await scrolls.create(request: "r", entries: entries, position: 0, hits: entries.count))
            }
            let ids = Set(try await Self.rows(w).map(\.objectId))
            #expect(ids.count == 2 * SearchScrolls.maxPerCaller)
            #expect(!ids.contains(sids[0]) && !ids.contains(SearchScrolls.chunkID(sids[0], 1)))
            #expect(ids.contains(sids[1]) && ids.contains(SearchScrolls.chunkID(sids[1], 1)))
        }
    }

    @Test("Chunks stay under the object size limit, whatever the ids and classes", arguments: SearchServiceTests.engines)
    func chunkSizes(engine: Engine) async throws {
        try await SearchServiceTests.run(engine) { w in
            _ = try await w.seed(public: 1)
            // Imported ids may be 128 bytes, and need escaping in JSON.
            let long = (0..<SearchScrolls.window).map { index in
                "Note/" + String(repeating: "\"é", count: 60) + String(100_000_000 + index)
            }
            let mixed = long.enumerated().map { $0.offset.isMultiple(of: 2) ? "Post/" + $0.element.dropFirst(5) : $0.element }
            #expect(SearchScrolls.chunked(long).allSatisfy { !$0.isEmpty && $0.count <= SearchScrolls.chunkSize })
            #expect(SearchScrolls.chunked([]).count == 1)
            let scrolls = SearchScrolls(storage: w.storage, caller: Self.bob)
            for entries in [long, mixed, Array(long.prefix(3))] {
                let sid = try await scrolls.create(request: "r", entries: entries, position: 1, hits: entries.count)
                var scroll = try await scrolls.open(sid, request: "r")
                #expect(scroll.position == 1 && scroll.hits == entries.count && scroll.entries.count == entries.count)
                #expect(try await scroll.entries.slice(0..<entries.count) == entries)
                #expect(try await scroll.entries.slice(entries.count - 2..<entries.count + 5) == Array(entries.suffix(2)))
            }
            let past = try await scrolls.create(request: "r", entries: long + ["Note/x"], position: 0, hits: 1)
            #expect(try await scrolls.open(past, request: "r").entries.count == SearchScrolls.window)
        }
    }
}
