import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `AV.SearchQuery` and `AV.SearchSortBuilder` in JavaScript cloud code, run in the real
/// JavaScriptCore sandbox against a server on a real SQLite file: what a script's search finds,
/// pages, orders and highlights, and who it searches as.
@Suite struct JavaScriptSearchTests {
    /// A function that runs one search as `params` describe and pages it to the end: each
    /// page's results as plain values, `hits()` and whether `hasMore()` ended it.
    static let cloudJS = """
        AV.Cloud.define('search', async function (request) {
          var p = request.params;
          var q = new AV.SearchQuery(p.className);
          q.queryString(p.q);
          if (p.highlights) q.highlights(p.highlights);
          if (p.limit) q.limit(p.limit);
          if (p.descending) q.descending(p.descending);
          if (p.sortDescending) q.sortBy(new AV.SearchSortBuilder().descending(p.sortDescending));
          if (p.near) q.sortBy(new AV.SearchSortBuilder().whereNear('place', new AV.GeoPoint(10, 20)));
          if (p.select) q.select(p.select);
          var options = {};
          if (p.as === 'user') options.user = request.currentUser;
          if (p.as === 'master') options.useMasterKey = true;
          if (p.as === 'token') options.sessionToken = p.token;
          var pages = [];
          do {
            var results = await q.find(options);
            pages.push(results.map(function (o) {
              return {
                id: o.id, className: o.className, isObject: o instanceof AV.Object,
                isPost: o instanceof AV.Object.extend('Post'), appURL: o.appURL || null,
                highlight: o.get('_highlight') || null, title: o.get('title') === undefined ? null : o.get('title'),
                score: o.get('score') === undefined ? null : o.get('score'),
                leaked: o.has('_app_url') || o.has('_deeplink') || o.has('className')
              };
            }));
          } while (q.hasMore() && pages.length < 20);
          return { hits: q.hits(), pages: pages, hasMore: q.hasMore() };
        });

        AV.Cloud.define('firstAndCount', async function (request) {
          var q = new AV.SearchQuery('Post').queryString(request.params.q);
          var first = await q.first({ useMasterKey: true });
          var count = await q.count({ useMasterKey: true });
          // Neither moved find()'s paging.
          return { first: first ? first.id : null, count: count, hasMore: q.hasMore(), hits: q.hits() };
        });

        AV.Cloud.define('sortText', function () {
          return new AV.SearchSortBuilder().ascending('a').descending('b', 'max')
            .whereNear('location', new AV.GeoPoint(10, 20), { order: 'desc' }).build();
        });

        AV.Cloud.define('refusals', async function () {
          var out = {};
          async function code(make) {
            try { await make(); return 'no error'; } catch (e) { return e.code + ' ' + e.message; }
          }
          out.noQueryString = await code(function () { return new AV.SearchQuery('Post').find(); });
          out.orderAndSort = await code(function () {
            return new AV.SearchQuery('Post').queryString('x').ascending('score')
              .sortBy(new AV.SearchSortBuilder().descending('score')).find();
          });
          out.each = await code(function () { return new AV.SearchQuery('Post').queryString('x').each(function () {}); });
          return out;
        });
        """

    /// Posts to search: five English ones with "coffee", three Chinese ones with 可乐, each with
    /// a score; and one that only `ann` may read.
    struct Corpus {
        var english: [String] = []
        var chinese: [String] = []
        var annsOwn = ""
        var annId = ""
    }

    static func seed(_ api: API) async throws -> Corpus {
        var corpus = Corpus()
        corpus.annId = try await JSDataServer.makeUser(api, "ann", token: "ann-token")
        _ = try await JSDataServer.makeUser(api, "bob", token: "bob-token")
        for (i, title) in ["morning coffee", "coffee beans", "iced coffee", "coffee and cake", "strong coffee"].enumerated() {
            corpus.english.append(try await api.create("Post", ["title": .string(title), "score": .int(Int64(10 * i))]))
        }
        for (i, title) in ["冰镇可乐", "可乐和薯条", "一瓶可乐"].enumerated() {
            corpus.chinese.append(try await api.create("Post", ["title": .string(title), "score": .int(Int64(5 + 10 * i))]))
        }
        _ = try await api.create("Post", ["title": "green tea", "score": 1])
        corpus.annsOwn = try await api.create(
            "Post", ["title": "ann's secret coffee", "score": 99, "ACL": .object([corpus.annId: ["read": true, "write": true]])],
            headers: Headers.master)
        let on = try await api.put("/1.1/search/classes/Post", headers: Headers.master, ["fields": ["title"]])
        #expect(on.status == .ok, "\(on)")
        return corpus
    }

    static func ids(_ answer: JSONValue) -> [String] {
        (answer["pages"]?.arrayValue ?? []).flatMap { $0.arrayValue ?? [] }.compactMap { $0["id"]?.stringValue }
    }

    @Test func aSearchPagesThroughEveryMatchByItsScrollId() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            let corpus = try await Self.seed(api)
            let answer = try await api.jsFunction("search", ["className": "Post", "q": "coffee", "limit": 2])
            let found = Self.ids(answer)
            // Every public match once, over pages of at most 2; ann's post isn't the app's to see.
            #expect(found.count == 5 && Set(found) == Set(corpus.english), "\(answer)")
            #expect(answer["hits"] == 5 && answer["hasMore"] == false, "\(answer)")
            let pages = answer["pages"]?.arrayValue ?? []
            #expect(pages.count >= 3 && pages.allSatisfy { ($0.arrayValue?.count ?? 0) <= 2 }, "\(answer)")
            for result in pages.flatMap({ $0.arrayValue ?? [] }) {
                #expect(result["className"] == "Post" && result["isObject"] == true && result["isPost"] == true, "\(result)")
                // `_app_url` is the object's appURL, not an attribute; `className` isn't one either.
                let appURL = result["appURL"]?.stringValue ?? ""
                #expect(appURL.hasSuffix("/classes/Post/\(result["id"]?.stringValue ?? "?")"), "\(result)")
                #expect(result["leaked"] == false && result["highlight"] == .null, "\(result)")
            }
        }
    }

    @Test func resultsLinkUnderThePublicURLWithTheAppsScheme() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS], configure: { $0.publicURL = "https://api.example.com" }) { api in
            let corpus = try await Self.seed(api)
            let answer = try await api.jsFunction("search", ["className": "Post", "q": "coffee", "limit": 10])
            let results = (answer["pages"]?.arrayValue ?? []).flatMap { $0.arrayValue ?? [] }
            #expect(results.count == corpus.english.count, "\(answer)")
            for result in results {
                // The app id `app`: LeanCloud's scheme `com.leancloud.` + its first 8 characters.
                let id = result["id"]?.stringValue ?? "?"
                #expect(result["appURL"] == .string("https://api.example.com/1.1/go/com.leancloud.app/classes/Post/\(id)"), "\(result)")
            }
        }
    }

    @Test func chineseWordsAreFoundAndHighlighted() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            let corpus = try await Self.seed(api)
            let answer = try await api.jsFunction("search", ["className": "Post", "q": "可乐", "highlights": "title"])
            #expect(Set(Self.ids(answer)) == Set(corpus.chinese) && answer["hits"] == 3, "\(answer)")
            for result in answer["pages"]?.arrayValue?.first?.arrayValue ?? [] {
                let fragments = result["highlight"]?["title"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let text = fragments.joined().replacingOccurrences(of: "<em>", with: "").replacingOccurrences(of: "</em>", with: "")
                #expect(fragments.joined().contains("<em>") && text.contains("可乐"), "\(result)")
            }
            // A field query and a term of both languages.
            let field = try await api.jsFunction("search", ["className": "Post", "q": "title:(可乐 OR beans)"])
            #expect(Set(Self.ids(field)) == Set(corpus.chinese + [corpus.english[1]]), "\(field)")
        }
    }

    @Test func resultsAreOrderedByAFieldOrTheSortBuilder() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            _ = try await Self.seed(api)
            for params: JSONValue in [
                ["className": "Post", "q": "coffee OR 可乐", "descending": "score"],
                ["className": "Post", "q": "coffee OR 可乐", "sortDescending": "score"],
            ] {
                let answer = try await api.jsFunction("search", params)
                let scores = (answer["pages"]?.arrayValue ?? []).flatMap { $0.arrayValue ?? [] }.compactMap { $0["score"]?.intValue }
                #expect(scores == [40, 30, 25, 20, 15, 10, 5, 0], "\(params): \(answer)")
            }
            // Only the fields asked for (and the built-ins) are answered.
            let selected = try await api.jsFunction("search", ["className": "Post", "q": "beans", "select": ["score"]])
            let only = selected["pages"]?.arrayValue?.first?.arrayValue?.first
            #expect(only?["score"] == 10 && only?["title"] == .null, "\(selected)")
        }
    }

    @Test func firstAndCountLeaveThePagingAlone() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            let corpus = try await Self.seed(api)
            let answer = try await api.jsFunction("firstAndCount", ["q": "可乐"])
            #expect(corpus.chinese.contains(answer["first"]?.stringValue ?? ""), "\(answer)")
            #expect(answer["count"] == 3 && answer["hasMore"] == true && answer["hits"] == 0, "\(answer)")
        }
    }

    @Test func theSortBuilderBuildsLeanCloudsSortText() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            // The string the JS SDK's own test (test/search.js) expects.
            let text = try await api.jsFunction("sortText")
            #expect(
                text
                    == #"[{"a":{"order":"asc","mode":"avg","missing":"_last"}},{"b":{"order":"desc","mode":"max","missing":"_last"}},{"_geo_distance":{"order":"desc","mode":"avg","unit":"km","location":{"lat":10,"lon":20}}}]"#
            )
        }
    }

    @Test func whatASearchCantDoIsRefusedWithItsCode() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            _ = try await Self.seed(api)
            let refusals = try await api.jsFunction("refusals")
            #expect(refusals["noQueryString"] == "102 Please set query string.", "\(refusals)")
            #expect(refusals["orderAndSort"] == "102 sort and order can not be set at same time.", "\(refusals)")
            #expect(refusals["each"]?.stringValue?.hasPrefix("102 ") == true, "\(refusals)")
            // A geo-distance sort reaches the host, which refuses it.
            let near = try await api.post("/1.1/functions/search", ["className": "Post", "q": "coffee", "near": true])
            #expect(near["code"] == 102 && near["error"]?.stringValue?.contains("_geo_distance") == true, "\(near)")
            // A class search isn't on for.
            let off = try await api.post("/1.1/functions/search", ["className": "Comment", "q": "coffee"])
            #expect(off.status != .ok && off["code"]?.intValue != 1, "\(off)")
        }
    }

    /// Attack: a script's search acts as the identity its call names, never as the request's
    /// master key or another user: an object only ann may read is neither answered nor counted
    /// unless the call is ann's or asks for the master key.
    @Test func aScriptSearchesAsItsCallNamesNeverAsMasterUnasked() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            let corpus = try await Self.seed(api)
            let ann = JSDataServer.session("ann-token")
            let bob = JSDataServer.session("bob-token")
            let query: [String: JSONValue] = ["className": "Post", "q": "secret"]
            func search(_ extra: [String: JSONValue], headers: HTTPFields) async throws -> JSONValue {
                try await api.jsFunction("search", .object(query.merging(extra) { $1 }), headers: headers)
            }
            // The app with no user, even when the request carried the master key.
            for headers in [Headers.client, Headers.master, ann] {
                let answer = try await search([:], headers: headers)
                #expect(Self.ids(answer).isEmpty && answer["hits"] == 0, "\(answer)")
            }
            // Another user: bob's session sees nothing of ann's.
            let asBob = try await search(["as": "user"], headers: bob)
            #expect(Self.ids(asBob).isEmpty && asBob["hits"] == 0, "\(asBob)")
            // A made-up session token is refused, not read as the app.
            let forged = try await api.post("/1.1/functions/search", headers: bob, .object(query.merging(["as": "token", "token": "guess"]) { $1 }))
            #expect(forged["code"] == 211, "\(forged)")
            // Ann's own call, and a call that asks for the master key, find it.
            #expect(Self.ids(try await search(["as": "user"], headers: ann)) == [corpus.annsOwn])
            #expect(Self.ids(try await search(["as": "master"], headers: Headers.client)) == [corpus.annsOwn])
        }
    }

    @Test func aSearchWithoutAClassSearchesEveryClassSearchIsOnFor() async throws {
        try await JSDataServer.run(["cloud.js": Self.cloudJS]) { api in
            let corpus = try await Self.seed(api)
            let note = try await api.create("Note", ["text": "coffee notes"])
            _ = try await api.create("Hidden", ["text": "coffee elsewhere"])
            let on = try await api.put("/1.1/search/classes/Note", headers: Headers.master, ["fields": ["text"]])
            #expect(on.status == .ok, "\(on)")
            let answer = try await api.jsFunction("search", ["q": "coffee"])
            let results = (answer["pages"]?.arrayValue ?? []).flatMap { $0.arrayValue ?? [] }
            #expect(Set(Self.ids(answer)) == Set(corpus.english + [note]), "\(answer)")
            let noteResult = results.first { $0["id"]?.stringValue == note }
            #expect(noteResult?["className"] == "Note" && noteResult?["isPost"] == false, "\(answer)")
        }
    }
}
