import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `GET /1.1/search/select` and the master key's `/1.1/search/classes`, over HTTP on loopback.
@Suite struct SearchRouteTests {
    /// The query string of a search, each value percent-encoded.
    static func select(_ parameters: [(String, String)], version: String = "1.1") -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        let query = parameters.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
        return "/\(version)/search/select?\(query)"
    }

    /// Three public GameScores and one only `owner` reads, with search on for `playerName`.
    static func seed(_ api: API, owner: String) async throws {
        for (name, score) in [("Dennis ZX", 10), ("dennis <b>", 20), ("可口可乐 Sean", 30)] {
            _ = try await api.create("GameScore", ["playerName": .string(name), "score": .int(Int64(score))], headers: Headers.master)
        }
        _ = try await api.create(
            "GameScore", ["playerName": "dennis private", "score": 40, "ACL": [.init(stringLiteral: owner): ["read": true]]],
            headers: Headers.master)
        let on = try await api.put("/1.1/search/classes/GameScore", headers: Headers.master, ["fields": ["playerName"]])
        #expect(on.status == .ok, "\(on)")
        #expect(on.json == ["className": "GameScore", "fields": ["playerName"]])
    }

    @Test func selectAnswersResultsHitsSidAndLinks() async throws {
        try await TestServer.run(transport: .socket) { api in
            let (owner, session) = try await FileFixture.signUp(api, "ann")
            try await Self.seed(api, owner: owner)
            let reply = try await api.get(
                Self.select([("q", "dennis"), ("clazz", "GameScore"), ("highlights", "playerName"), ("order", "score")]))
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply["hits"] == 2)
            #expect(reply["sid"] == .null)
            let first = try #require(reply.results.first)
            #expect(first["playerName"] == "Dennis ZX")
            #expect(first["_highlight"] == ["playerName": ["<em>Dennis</em> ZX"]])
            #expect(reply.results[1]["_highlight"] == ["playerName": ["<em>dennis</em> &lt;b&gt;"]])
            let id = try #require(first["objectId"]?.stringValue)
            #expect(first["_deeplink"] == .string("com.leancloud.app://leancloud/classes/GameScore/\(id)"))
            #expect(first["_app_url"]?.stringValue?.hasSuffix("/1.1/go/com.leancloud.app/classes/GameScore/\(id)") == true)
            #expect(first["className"] == nil)
            #expect(first["ACL"] == nil)
            // The owner also sees (and counts) its private score; `/1/` answers the same.
            let owned = try await api.get(Self.select([("q", "dennis"), ("clazz", "GameScore")], version: "1"), headers: session)
            #expect(owned["hits"] == 3, "\(owned)")
            #expect(owned.results.allSatisfy { $0["_highlight"] == .null })
            // Chinese, sort, fields, paging with sid.
            let chinese = try await api.get(Self.select([("q", "可乐"), ("clazz", "GameScore"), ("fields", "score")]))
            #expect(chinese.results.map { $0["score"] } == [30])
            #expect(chinese.results.first?["playerName"] == nil)
            let sorted = try await api.get(
                Self.select([("q", "*"), ("clazz", "GameScore"), ("limit", "2"), ("sort", #"[{"score":{"order":"desc","mode":"avg","missing":"_last"}}]"#)]))
            #expect(sorted.results.map { $0["score"] } == [30, 20])
            #expect(sorted["hits"] == 3)
            let sid = try #require(sorted["sid"]?.stringValue)
            let next = try await api.get(
                Self.select([
                    ("q", "*"), ("clazz", "GameScore"), ("limit", "2"), ("sid", sid),
                    ("sort", #"[{"score":{"order":"desc","mode":"avg","missing":"_last"}}]"#),
                ]))
            #expect(next.results.map { $0["score"] } == [10])
            #expect(next["sid"] == .null)
            // Without clazz: every searchable class, each result naming its class.
            let all = try await api.get(Self.select([("q", "sean")]))
            #expect(all.results.map { $0["className"] } == ["GameScore"], "\(all)")
        }
    }

    @Test func adminRoutesAreTheMasterKeys() async throws {
        try await TestServer.run(transport: .socket) { api in
            _ = try await api.create("Post", ["title": "x"], headers: Headers.master)
            let refused = try await api.put("/1.1/search/classes/Post", ["fields": ["title"]])
            #expect(refused.status == .forbidden && refused["code"] == 119, "\(refused)")
            #expect(try await api.get("/1.1/search/classes")["code"] == 119)
            #expect(try await api.delete("/1.1/search/classes/Post")["code"] == 119)
            let bad = try await api.put("/1.1/search/classes/Post", headers: Headers.master, ["fields": "title"])
            #expect(bad.status == .badRequest && bad["code"] == 1, "\(bad)")
            let on = try await api.put("/1.1/search/classes/Post", headers: Headers.master, ["fields": ["title"]])
            #expect(on.status == .ok, "\(on)")
            let listed = try await api.get("/1.1/search/classes", headers: Headers.master)
            #expect(listed.json == ["results": [["className": "Post", "fields": ["title"]]]])
            #expect(try await api.delete("/1.1/search/classes/Post", headers: Headers.master).status == .ok)
            #expect(try await api.get("/1.1/search/classes", headers: Headers.master).json == ["results": []])
            let off = try await api.get(Self.select([("q", "x"), ("clazz", "Post")]))
            #expect(off.status == .notFound && off["code"] == 101, "\(off)")
        }
    }

    /// Attacks on the new route: huge and deep `q`, bad and foreign `sid`s, limits out of range,
    /// refused syntax, hidden fields: each a clear `{"code","error"}`, never a 500 or a hang.
    @Test func attacks() async throws {
        try await TestServer.run(transport: .socket) { api in
            let (owner, session) = try await FileFixture.signUp(api, "ann")
            try await Self.seed(api, owner: owner)
            func expectRefused(_ parameters: [(String, String)], code: Int, headers: HTTPFields = Headers.client) async throws {
                let reply = try await api.get(Self.select(parameters), headers: headers)
                #expect(reply.status.code >= 400 && reply.status.code < 500, "\(parameters.map(\.0)): \(reply.status)")
                #expect(reply["code"]?.intValue == Int64(code), "\(reply.text.prefix(300))")
                #expect(reply["error"]?.stringValue?.isEmpty == false)
            }
            let clazz = ("clazz", "GameScore")
            try await expectRefused([("q", String(repeating: "dennis ", count: 2000)), clazz], code: 102)
            try await expectRefused([("q", String(repeating: "(", count: 3000) + "a" + String(repeating: ")", count: 3000)), clazz], code: 102)
            try await expectRefused([("q", String(repeating: "NOT ", count: 500) + "a"), clazz], code: 102)
            try await expectRefused([("q", "name:/jo.*/"), clazz], code: 102)
            try await expectRefused([("q", "dennis~"), clazz], code: 102)
            try await expectRefused([("q", "score:[1 TO"), clazz], code: 102)
            try await expectRefused([("q", "password:[a TO z]"), ("clazz", "_User")], code: 101)
            try await expectRefused([clazz], code: 102)
            try await expectRefused([("q", "dennis"), clazz, ("limit", "-1")], code: 102)
            try await expectRefused([("q", "dennis"), clazz, ("limit", "many")], code: 102)
            try await expectRefused([("q", "dennis"), clazz, ("skip", "99999999")], code: 102)
            try await expectRefused([("q", "dennis"), clazz, ("sort", "[{")], code: 102)
            try await expectRefused([("q", "dennis"), clazz, ("sort", #"[{"_geo_distance":{"location":{"lat":1,"lon":2}}}]"#)], code: 102)
            try await expectRefused([("q", "dennis"), clazz, ("order", "score"), ("sort", #"[{"score":{}}]"#)], code: 102)
            try await expectRefused([("q", "dennis"), clazz, ("sid", "nonsense")], code: 1)
            try await expectRefused([("q", "dennis"), clazz, ("sid", String(repeating: "a", count: 32))], code: 1)
            try await expectRefused([("q", "dennis"), ("clazz", "_SearchScroll")], code: 119)
            // Past 1000, the most a page holds (as a find serves it).
            let big = try await api.get(Self.select([("q", "dennis"), clazz, ("limit", "100000")]))
            #expect(big.status == .ok && big["hits"] == 2, "\(big)")
            // Another user's sid is unknown to this one; the owner's works.
            let first = try await api.get(Self.select([("q", "dennis"), clazz, ("limit", "1")]), headers: session)
            let sid = try #require(first["sid"]?.stringValue, "\(first)")
            try await expectRefused([("q", "dennis"), clazz, ("limit", "1"), ("sid", sid)], code: 1)
            try await expectRefused([("q", "dennis"), clazz, ("limit", "1"), ("sid", sid)], code: 1, headers: Headers.master)
            let mine = try await api.get(Self.select([("q", "dennis"), clazz, ("limit", "1"), ("sid", sid)]), headers: session)
            #expect(mine.status == .ok && mine.results.count == 1, "\(mine)")
            // A field the class hides can't be filtered on.
            #expect(try await api.put("/1.1/schemas/GameScore", headers: Headers.master, ["schema": ["score": ["hidden": true]]]).status == .ok)
            try await expectRefused([("q", "score:>15"), clazz], code: 119)
        }
    }
}
