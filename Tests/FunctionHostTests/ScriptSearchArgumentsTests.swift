import DataAPI
import JSON
import Testing

@testable import FunctionHost

/// `data.search`'s arguments (what `AV.SearchQuery#find` sends) read into a `SearchRequest` by
/// the route's parser: every part a client's search has, the call's identity left aside; what
/// can't be honoured is refused with 102 before any search runs.
@Suite struct ScriptSearchArgumentsTests {
    private func request(_ json: JSONValue) throws(DataAPIError) -> SearchRequest {
        try ScriptSearch.request(ScriptArguments(json))
    }

    private func expectRefused(_ json: JSONValue, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try request(json)
            Issue.record("expected 102 for \(json)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .invalidQuery && error.message.contains(message), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyPartOfTheQueryIsRead() throws {
        let read = try request([
            "clazz": "GameScore", "q": "可乐 OR dennis", "limit": 5, "skip": 2, "sid": "abc",
            "keys": ["playerName", "score"], "include": ["owner"], "highlights": ["playerName", "title"],
            "order": "-score,createdAt", "returnACL": true,
            "options": ["useMasterKey": true, "sessionToken": "t"], "ignoreHooks": ["beforeFind"],
        ])
        #expect(read.className == "GameScore" && read.query == "可乐 OR dennis")
        #expect(read.limit == 5 && read.skip == 2 && read.scrollID == "abc" && read.returnACL)
        #expect(read.keys == KeySelection("playerName,score") && read.include == ["owner"])
        #expect(read.highlights == ["playerName", "title"])
        #expect(read.order == [SortKey(key: "score", descending: true), SortKey(key: "createdAt", descending: false)])

        // Without a class: every class search is on for; the defaults of a find.
        let bare = try request(["q": "*"])
        #expect(bare.className == nil && bare.limit == SearchRequest.defaultLimit && bare.skip == 0)
        #expect(bare.scrollID == nil && bare.highlights == nil && bare.order.isEmpty && bare.keys == nil)
        // A page past the most a find serves is served at that most.
        #expect(try request(["q": "*", "limit": 5000]).limit == ObjectQuery.maxLimit)
        #expect(try request(["q": "*", "highlights": "*"]).highlights == ["*"])
    }

    @Test func theSortBuildersTextBecomesTheOrder() throws {
        // What AV.SearchSortBuilder().ascending('a').descending('b', 'max').build() sends.
        let sort = #"[{"a":{"order":"asc","mode":"avg","missing":"_last"}},{"b":{"order":"desc","mode":"max","missing":"_last"}}]"#
        #expect(
            try request(["q": "x", "sort": .string(sort)]).order
                == [SortKey(key: "a", descending: false), SortKey(key: "b", descending: true)])
        #expect(try request(["q": "x", "sort": [["_score": ["order": "desc"]]]]).order == [SortKey(key: "_score", descending: true)])
    }

    @Test func whatCantBeHonouredIsRefusedWith102() {
        expectRefused(["clazz": "GameScore"], "q is required")
        expectRefused(["q": ""], "q is required")
        expectRefused(["q": "x", "order": "score", "sort": #"[{"a":{}}]"#], "order and sort can't be used together.")
        expectRefused(
            ["q": "x", "sort": #"[{"_geo_distance":{"order":"asc","mode":"avg","unit":"km","location":{"lat":1,"lon":2}}}]"#],
            "_geo_distance")
        expectRefused(["q": "x", "sort": "not json"], "sort must be a JSON array")
        expectRefused(["q": "x", "sort": [["a": ["order": "up"]]]], "asc or desc")
        expectRefused(["q": "x", "sort": [["$where": [:]]]], "Invalid order key '$where'")
        expectRefused(["q": "x", "highlights": [1]], "highlights")
        expectRefused(["q": "x", "limit": -1], "limit must be a non-negative integer")
    }
}
