import JSON
import TestSupport
import Testing

@testable import DataAPI

/// `DataService.search` end to end on a real SQLite file, and on PostgreSQL when
/// `FUNCTIONHOST_TEST_DATABASE_URL` names a server: authorization, paging, views.
@Suite("Search service")
struct SearchServiceTests {
    static let ann = Caller(isMaster: false, user: ["objectId": "ann"])
    static let bob = Caller(isMaster: false, user: ["objectId": "bob"])
    static let master = Caller(isMaster: true)

    /// The engines the tests run on.
    enum Engine: String, Sendable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static var engines: [Engine] { TestDatabase.server == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// Runs `body` with a service over a fresh database of the engine.
    static func run(_ engine: Engine, _ body: (World) async throws -> Void) async throws {
        switch engine {
        case .sqlite:
            let db = try SQLiteTestDatabase()
            try await body(World(service: db.service, storage: db.storage))
        case .postgres:
            try await StorageEngineTests.withPostgres { storage in
                try await body(World(service: DataService(storage: storage), storage: storage))
            }
        }
    }

    /// A service and the engine under it.
    struct World {
        let service: DataService
        let storage: any StorageEngine

        /// Posts about apples: `public` readable by everyone, `private` by ann alone.
        func seed(public count: Int, private hidden: Int = 0, word: String = "apple") async throws -> [String] {
            var ids: [String] = []
            for index in 0..<count {
                let object = try await service.create(
                    "Post", body: ["title": .string("\(word) pie \(index)"), "body": "我爱喝可口可乐", "n": .int(Int64(index))],
                    caller: SearchServiceTests.master)
                ids.append(object.objectId)
            }
            for index in 0..<hidden {
                let object = try await service.create(
                    "Post", body: ["title": .string("secret \(word) \(index)"), "ACL": ["ann": ["read": true]]],
                    caller: SearchServiceTests.master)
                ids.append(object.objectId)
            }
            if try await service.searchSettings(caller: SearchServiceTests.master).isEmpty {
                _ = try await service.setSearch("Post", fields: ["title", "body"], caller: SearchServiceTests.master)
            }
            return ids
        }

        func search(
            _ q: String, as caller: Caller = SearchServiceTests.bob, _ change: (inout SearchRequest) -> Void = { _ in }
        ) async throws -> SearchAnswer {
            var request = SearchRequest(className: "Post", query: q)
            change(&request)
            return try await service.search(request, caller: caller)
        }
    }

    @Test("Results and hits leave out what the caller may not read", arguments: Self.engines)
    func aclFiltering(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.seed(public: 3, private: 2)
            let bob = try await w.search("apple")
            #expect(bob.hits == 3)
            #expect(bob.results.count == 3)
            #expect(bob.results.allSatisfy { $0.object.fields["title"]?.stringValue?.hasPrefix("apple") == true })
            #expect(try await w.search("apple", as: Self.ann).hits == 5)
            #expect(try await w.search("apple", as: Self.master).hits == 5)
            #expect(try await w.search("secret", as: Self.bob).hits == 0)
            #expect(try await w.search("可乐").hits == 3)
            #expect(try await w.search("n:[1 TO 2]").hits == 2)
            #expect(bob.scrollID == nil)
        }
    }

    @Test("A class whose find is closed is refused; a class search isn't on for is 101", arguments: Self.engines)
    func classRefusals(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.seed(public: 2)
            _ = try await w.service.updateClassSettings("Post", with: ["permissions": ["find": ["users": ["ann"]]]], caller: Self.master)
            await expectDataAPIErrorAsync(403) { _ = try await w.search("apple") }
            #expect(try await w.search("apple", as: Self.ann).hits == 2)
            _ = try await w.service.create("Other", body: ["title": "apple"], caller: Self.master)
            await expectDataAPIErrorAsync(101) { _ = try await w.service.search(SearchRequest(className: "Other", query: "apple"), caller: Self.bob) }
            await expectDataAPIErrorAsync(119) {
                _ = try await w.service.search(SearchRequest(className: "_SearchScroll", query: "*"), caller: Self.bob)
            }
            await expectDataAPIErrorAsync(103) { _ = try await w.service.search(SearchRequest(className: "bad name", query: "*"), caller: Self.bob) }
        }
    }

    @Test("A hidden field can't be searched or filtered on, even when indexed", arguments: Self.engines)
    func hiddenFields(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.service.create("Post", body: ["title": "apple", "secret": "plum", "code": 7], caller: Self.master)
            _ = try await w.service.setSearch("Post", fields: ["title", "secret"], caller: Self.master)
            _ = try await w.service.updateClassSettings(
                "Post", with: ["schema": ["secret": ["hidden": true], "code": ["hidden": true]]], caller: Self.master)
            await expectDataAPIErrorAsync(119) { _ = try await w.search("code:[1 TO 9]") }
            await expectDataAPIErrorAsync(119) { _ = try await w.search("secret:plum") }
            await expectDataAPIErrorAsync(119) { _ = try await w.search("_exists_:code") }
            #expect(try await w.search("plum").hits == 0)
            #expect(try await w.search("plum", as: Self.master).hits == 1)
            #expect(try await w.search("apple").hits == 1)
            let highlighted = try await w.search("apple OR plum") { $0.highlights = ["*"] }
            #expect(highlighted.results.first?.highlight == ["title": ["<em>apple</em>"]])
            #expect(highlighted.results.first?.object.fields["secret"] == nil)
        }
    }

    @Test("Scroll pages survive an insert and a delete between pages, without repeats", arguments: Self.engines)
    func scrollPaging(engine: Engine) async throws {
        try await Self.run(engine) { w in
            let ids = try await w.seed(public: 25)
            let first = try await w.search("apple") { $0.limit = 10; $0.order = [SortKey(key: "n", descending: false)] }
            #expect(first.hits == 25)
            #expect(first.results.map(\.object.objectId) == Array(ids[0..<10]))
            let sid = try #require(first.scrollID)
            try await w.service.delete("Post", id: ids[12], caller: Self.master)
            _ = try await w.service.create("Post", body: ["title": "apple new", "n": -1], caller: Self.master)
            let second = try await w.search("apple") {
                $0.limit = 10; $0.scrollID = sid; $0.order = [SortKey(key: "n", descending: false)]
            }
            #expect(second.results.map(\.object.objectId) == Array(ids[10..<12] + ids[13..<21]))
            #expect(second.scrollID == sid)
            let third = try await w.search("apple") {
                $0.limit = 10; $0.scrollID = sid; $0.order = [SortKey(key: "n", descending: false)]
            }
            #expect(third.results.map(\.object.objectId) == Array(ids[21..<25]))
            #expect(third.scrollID == nil)
            // The scroll is gone once read to its end.
            await expectDataAPIErrorAsync(1) {
                _ = try await w.search("apple") { $0.scrollID = sid; $0.order = [SortKey(key: "n", descending: false)] }
            }
        }
    }

    @Test("A scroll is bound to its caller and its query, and expires", arguments: Self.engines)
    func scrollBinding(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.seed(public: 5)
            let first = try await w.search("apple") { $0.limit = 2 }
            let sid = try #require(first.scrollID)
            await expectDataAPIErrorAsync(1) { _ = try await w.search("apple", as: Self.ann) { $0.limit = 2; $0.scrollID = sid } }
            await expectDataAPIErrorAsync(1) { _ = try await w.search("apple", as: Self.master) { $0.limit = 2; $0.scrollID = sid } }
            await expectDataAPIErrorAsync(102) { _ = try await w.search("pie") { $0.limit = 2; $0.scrollID = sid } }
            // Another id (its first character changed; a random id may begin with "x" itself).
            let forged = (sid.first == "x" ? "y" : "x") + sid.dropFirst()
            await expectDataAPIErrorAsync(1) { _ = try await w.search("apple") { $0.scrollID = forged } }
            await expectDataAPIErrorAsync(1) { _ = try await w.search("apple") { $0.scrollID = "'; drop table x" } }
            #expect(try await w.search("apple") { $0.limit = 2; $0.scrollID = sid }.results.count == 2)
            // Its last use was over 5 minutes ago.
            let row = try #require(try await w.storage.find(ObjectQuery(className: SearchScrolls.className)).first)
            _ = try await w.storage.update(SearchScrolls.className, id: row.objectId, changes: sets(["expiresAt": 1.0]), condition: nil)
            await expectDataAPIErrorAsync(1) { _ = try await w.search("apple") { $0.limit = 2; $0.scrollID = sid } }
        }
    }

    @Test("A caller keeps a bounded number of scrolls; expired ones are swept", arguments: Self.engines)
    func scrollBounds(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.seed(public: 3)
            var sids: [String] = []
            for _ in 0..<(SearchScrolls.maxPerCaller + 5) { sids.append(try #require(try await w.search("apple") { $0.limit = 1 }.scrollID)) }
            let rows = try await w.storage.find(ObjectQuery(className: SearchScrolls.className, limit: 1000))
            #expect(rows.count == SearchScrolls.maxPerCaller)
            #expect(try await w.search("apple") { $0.limit = 1; $0.scrollID = sids.last }.results.count == 1)
            await expectDataAPIErrorAsync(1) { _ = try await w.search("apple") { $0.limit = 1; $0.scrollID = sids[0] } }
        }
    }

    @Test("Highlights, keys, include, returnACL and File values in results", arguments: Self.engines)
    func views(engine: Engine) async throws {
        try await Self.run(engine) { w in
            let author = try await w.service.create("Author", body: ["name": "Ann"], caller: Self.master)
            let file = try await w.service.create(
                "_File", body: ["name": "a.txt", "url": "http://files/a.txt", "mime_type": "text/plain"], caller: Self.master)
            _ = try await w.service.create(
                "Post",
                body: [
                    "title": "Dennis ZX", "body": "dennis again", "author": author.pointer,
                    "attachment": ["__type": "File", "objectId": .string(file.objectId)],
                ], caller: Self.master)
            _ = try await w.service.setSearch("Post", fields: ["title", "body"], caller: Self.master)
            let plain = try await w.search("dennis")
            #expect(plain.results[0].highlight == nil)
            #expect(plain.results[0].object.fields["ACL"] == nil)
            #expect(plain.results[0].object.fields["attachment"]?["url"] == "http://files/a.txt")
            let all = try await w.search("dennis") { $0.highlights = ["*"] }
            #expect(all.results[0].highlight == ["title": ["<em>Dennis</em> ZX"], "body": ["<em>dennis</em> again"]])
            let one = try await w.search("dennis") { $0.highlights = ["title", "author"] }
            #expect(one.results[0].highlight == ["title": ["<em>Dennis</em> ZX"]])
            let keyed = try await w.search("dennis") { $0.keys = KeySelection("title") }
            #expect(keyed.results[0].object.fields.keys.sorted() == ["title"])
            let included = try await w.search("dennis") { $0.include = ["author"]; $0.returnACL = true }
            #expect(included.results[0].object.fields["author"]?["name"] == "Ann")
            #expect(included.results[0].object.fields["ACL"] != nil)
        }
    }

    @Test("Without a class, every searchable class the caller may find is searched", arguments: Self.engines)
    func crossClass(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.seed(public: 2)
            _ = try await w.service.create("Note", body: ["text": "apple note"], caller: Self.master)
            _ = try await w.service.create("Closed", body: ["text": "apple closed"], caller: Self.master)
            _ = try await w.service.setSearch("Note", fields: ["text"], caller: Self.master)
            _ = try await w.service.setSearch("Closed", fields: ["text"], caller: Self.master)
            _ = try await w.service.updateClassSettings("Closed", with: ["permissions": ["find": ["users": []]]], caller: Self.master)
            let answer = try await w.service.search(SearchRequest(className: nil, query: "apple"), caller: Self.bob)
            #expect(answer.hits == 3)
            #expect(Set(answer.results.map(\.object.className)) == ["Post", "Note"])
            #expect(try await w.service.search(SearchRequest(className: nil, query: "apple"), caller: Self.master).hits == 4)
            await expectDataAPIErrorAsync(102) {
                _ = try await w.service.search(SearchRequest(className: nil, query: "apple", order: [SortKey(key: "n", descending: false)]), caller: Self.bob)
            }
        }
    }

    @Test("Search settings: the master key's, validated", arguments: Self.engines)
    func settings(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.service.create("Post", body: ["title": "x"], caller: Self.master)
            await expectDataAPIErrorAsync(119) { _ = try await w.service.setSearch("Post", fields: ["title"], caller: Self.bob) }
            await expectDataAPIErrorAsync(119) { _ = try await w.service.searchSettings(caller: Self.bob) }
            await expectDataAPIErrorAsync(119) { _ = try await w.service.setSearch("_User", fields: ["username"], caller: Self.master) }
            await expectDataAPIErrorAsync(119) { _ = try await w.service.setSearch("_SearchScroll", fields: ["sid"], caller: Self.master) }
            await expectDataAPIErrorAsync(103) { _ = try await w.service.setSearch("no such", fields: ["title"], caller: Self.master) }
            await expectDataAPIErrorAsync(101) { _ = try await w.service.setSearch("Missing", fields: ["title"], caller: Self.master) }
            await expectDataAPIErrorAsync(105) { _ = try await w.service.setSearch("Post", fields: ["objectId"], caller: Self.master) }
            await expectDataAPIErrorAsync(105) { _ = try await w.service.setSearch("Post", fields: ["ACL"], caller: Self.master) }
            await expectDataAPIErrorAsync(105) { _ = try await w.service.setSearch("Post", fields: ["a b"], caller: Self.master) }
            await expectDataAPIErrorAsync(1) { _ = try await w.service.setSearch("Post", fields: [], caller: Self.master) }
            await expectDataAPIErrorAsync(1) {
                _ = try await w.service.setSearch("Post", fields: (0...SearchSettings.maxFields).map { "f\($0)" }, caller: Self.master)
            }
            let on = try await w.service.setSearch("Post", fields: ["title", "title", "body"], caller: Self.master)
            #expect(on == SearchSettings(className: "Post", fields: ["title", "body"]))
            #expect(try await w.service.searchSettings(caller: Self.master) == [SearchSettings(className: "Post", fields: ["title", "body"])])
            #expect(try await w.service.setSearch("Post", fields: nil, caller: Self.master) == nil)
            #expect(try await w.service.searchSettings(caller: Self.master).isEmpty)
            await expectDataAPIErrorAsync(101) { _ = try await w.search("x") }
        }
    }

    @Test("Request bounds: limit, skip and q", arguments: Self.engines)
    func bounds(engine: Engine) async throws {
        try await Self.run(engine) { w in
            _ = try await w.seed(public: 2)
            await expectDataAPIErrorAsync(102) { _ = try await w.search("apple") { $0.limit = 1001 } }
            await expectDataAPIErrorAsync(102) { _ = try await w.search("apple") { $0.limit = -1 } }
            await expectDataAPIErrorAsync(102) { _ = try await w.search("apple") { $0.skip = -1 } }
            await expectDataAPIErrorAsync(102) { _ = try await w.search("apple") { $0.skip = SearchScrolls.window } }
            await expectDataAPIErrorAsync(102) { _ = try await w.search(String(repeating: "(", count: 5000)) }
            await expectDataAPIErrorAsync(102) { _ = try await w.search("") }
            let none = try await w.search("apple") { $0.limit = 0 }
            #expect(none.results.isEmpty && none.hits == 2 && none.scrollID == nil)
            #expect(try await w.search("apple") { $0.skip = 1 }.results.count == 1)
        }
    }
}
