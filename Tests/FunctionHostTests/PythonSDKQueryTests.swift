import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// The queries of the Python SDK's own suite (leancloud 3.0.2, `tests/test_query.py`), sent as it
/// sends them: `client.get` puts each parameter in the URL, a dict (`where`) JSON-encoded, and
/// signs with `X-LC-Sign`.
@Suite struct PythonSDKQueryTests {
    /// The headers of the Python SDK's requests (`client.need_init`).
    static func headers(master: Bool = false) -> HTTPFields {
        let timestamp = String(ObjectID.currentMilliseconds())
        let key = master ? TestServer.keys.masterKey : TestServer.keys.appKey
        return Headers.make([
            ("Content-Type", "application/json;charset=utf-8"), ("X-LC-Id", TestServer.keys.appId),
            ("X-LC-Prod", "1"), ("User-Agent", "AVOS Cloud python-3.0.2 SDK (3.11)"),
            ("X-LC-Sign", MD5.hex(timestamp + key) + "," + timestamp + (master ? ",master" : "")),
        ])
    }

    /// `make_setup_func`: ten GameScores, `score` 0 to 9.
    static func seedScores(_ api: API) async throws -> [String] {
        var ids: [String] = []
        for score in 0..<10 {
            ids.append(try await api.create("GameScore", ["score": .int(Int64(score)), "playerName": "张三"]))
        }
        return ids
    }

    /// `test_cloud_query`: `do_cloud_query(cql, ["score"])` dumps the list, then dumps that text
    /// again, so `pvalues` is a JSON string holding the array; with `count(*), *` the answer has
    /// the rows and the count.
    @Test func cloudQueryWithAListOfPvaluesAndCountWithRows() async throws {
        try await TestServer.run { api in
            _ = try await Self.seedScores(api)
            let reply = try await api.get(
                "/1.1/cloudQuery"
                    + queryString([
                        "cql": "select count(*), * from GameScore where score<11", "pvalues": #""[\"score\"]""#,
                    ]), headers: Self.headers())
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply["count"] == 10, "\(reply)")
            #expect(reply["className"] == "GameScore")
            #expect(reply.results.count == 10)
            #expect(Set(reply.results.compactMap { $0["score"]?.intValue }) == Set(0..<10))
            #expect(reply.results.allSatisfy { $0["playerName"] == "张三" && $0["objectId"] != nil })
        }
    }

    /// `do_cloud_query(cql, pointer, date)` (values as the SDK's `json.dumps` writes dicts, with
    /// its spaces) and the same two as one list (encoded twice) find the same object.
    @Test func cloudQueryPvaluesAsVarargsAndAsAList() async throws {
        try await TestServer.run { api in
            let owner = try await api.create("Player", ["name": "ann"])
            let pointer = #"{"__type": "Pointer", "className": "Player", "objectId": "\#(owner)"}"#
            let when = #"{"__type": "Date", "iso": "2024-05-01T00:00:00.000Z"}"#
            _ = try await api.create(
                "Match", ["owner": ["__type": "Pointer", "className": "Player", "objectId": .string(owner)], "round": 1,
                    "at": ["__type": "Date", "iso": "2024-04-01T10:00:00.000Z"]])
            _ = try await api.create(
                "Match", ["owner": ["__type": "Pointer", "className": "Player", "objectId": .string(owner)], "round": 2,
                    "at": ["__type": "Date", "iso": "2024-06-01T10:00:00.000Z"]])
            let cql = "select * from Match where owner = ? and at < ?"
            let varargs = "[\(pointer), \(when)]"
            let list = JSONValue.string(varargs).jsonString
            for pvalues in [varargs, list] {
                let reply = try await api.get(
                    "/1.1/cloudQuery" + queryString(["cql": cql, "pvalues": pvalues]), headers: Self.headers())
                #expect(reply.status == .ok, "\(pvalues): \(reply)")
                #expect(reply.results.map { $0["round"] } == [1], "\(pvalues): \(reply)")
            }
            // A string that doesn't hold an array is still refused.
            let bad = try await api.get(
                "/1.1/cloudQuery" + queryString(["cql": cql, "pvalues": #""{\"a\":1}""#]), headers: Self.headers())
            expectError(bad, code: 300)
        }
    }

    /// `test_contains_all`: `contains_all("score", [5])` on a Number field finds the object whose
    /// score is 5 (MongoDB's `$all` on a value that isn't an array is equality with each value).
    @Test func containsAllOnANumberField() async throws {
        try await TestServer.run { api in
            _ = try await Self.seedScores(api)
            _ = try await api.create("GameScore", ["score": 20, "tags": [5, 6], "playerName": "李四"])
            func scores(_ condition: String) async throws -> [JSONValue] {
                let reply = try await api.get(
                    "/1.1/classes/GameScore" + queryString(["where": condition, "order": "createdAt"]),
                    headers: Self.headers())
                #expect(reply.status == .ok, "\(condition): \(reply)")
                return reply.results.compactMap { $0["score"] }
            }
            #expect(try await scores(#"{"score":{"$all":[5]}}"#) == [5])
            #expect(try await scores(#"{"score":{"$all":[5,5]}}"#) == [5])
            #expect(try await scores(#"{"score":{"$all":[5,6]}}"#) == [])
            #expect(try await scores(#"{"playerName":{"$all":["张三"]}}"#).count == 10)
            // An array still holds every value, not equals it.
            #expect(try await scores(#"{"tags":{"$all":[6,5]}}"#) == [20])
            #expect(try await scores(#"{"tags":{"$all":[5,7]}}"#) == [])
            #expect(try await scores(#"{"score":{"$all":[]}}"#) == [])
        }
    }

    /// `test_matches_key_in_query` and `test_does_not_match_key_in_query`: fifty A (`age` 0 to 9,
    /// five each) and fifty B (`work_year` likewise); B whose `work_year` is the `age` of an A
    /// with age 1 are five, the others forty-five. Asked with the client key and with the
    /// master key (whose queries index the fields at once), and with A's numbers written as
    /// decimals (`1.0`, as a client may send a float): a number equals a number, whatever its form.
    @Test(arguments: [false, true])
    func selectBetweenNumberFieldsOverFiftyObjects(decimals: Bool) async throws {
        try await TestServer.run { api in
            for _ in 0..<5 {
                for k in 0..<10 {
                    let age = decimals ? #"{"age":\#(k).0}"# : #"{"age":\#(k)}"#
                    #expect(try await api.send(.post, "/1.1/classes/A", body: age).status == .created)
                    _ = try await api.create("B", ["work_year": .int(Int64(k))])
                }
            }
            let inner = #"{"where":{"age":1},"className":"A"}"#
            for master in [false, true] {
                let selected = try await api.get(
                    "/1.1/classes/B" + queryString(["where": #"{"work_year":{"$select":{"key":"age","query":\#(inner)}}}"#]),
                    headers: Self.headers(master: master))
                #expect(selected.status == .ok, "\(selected)")
                #expect(selected.results.count == 5, "master \(master): \(selected)")
                #expect(selected.results.allSatisfy { $0["work_year"] == 1 })
                let others = try await api.get(
                    "/1.1/classes/B"
                        + queryString(["where": #"{"work_year":{"$dontSelect":{"key":"age","query":\#(inner)}}}"#]),
                    headers: Self.headers(master: master))
                #expect(others.status == .ok, "\(others)")
                #expect(others.results.count == 45, "master \(master): \(others)")
                #expect(others.results.allSatisfy { $0["work_year"] != 1 })
                // The other way round, and every A against every B: each of the fifty matches.
                let every = try await api.get(
                    "/1.1/classes/A"
                        + queryString(["where": #"{"age":{"$select":{"key":"work_year","query":{"className":"B"}}}}"#]),
                    headers: Self.headers(master: master))
                #expect(every.results.count == 50, "master \(master): \(every)")
            }
        }
    }
}
