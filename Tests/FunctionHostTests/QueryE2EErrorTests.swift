import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Invalid queries are answered 400 (404 for a missing class) with LeanCloud's code, never 500.
@Suite struct QueryE2EErrorTests {
    static let cases: [QE2ECase] = [
        .error("unknown field operator", #"{"score":{"$foo":1}}"#, code: 102),
        .error("unknown top-level operator", #"{"$foo":[{"score":1}]}"#, code: 102),
        .error("$where is not supported", #"{"$where":"this.score > 1"}"#, code: 102),
        .error("$polygon with more than 60 vertices", #"{"loc":{"$geoWithin":{"$polygon":[[-30.0,0],[-29.016,1],[-28.033,0],[-27.049,1],[-26.066,0],[-25.082,1],[-24.098,0],[-23.115,1],[-22.131,0],[-21.148,1],[-20.164,0],[-19.18,1],[-18.197,0],[-17.213,1],[-16.23,0],[-15.246,1],[-14.262,0],[-13.279,1],[-12.295,0],[-11.311,1],[-10.328,0],[-9.344,1],[-8.361,0],[-7.377,1],[-6.393,0],[-5.41,1],[-4.426,0],[-3.443,1],[-2.459,0],[-1.475,1],[-0.492,0],[0.492,1],[1.475,0],[2.459,1],[3.443,0],[4.426,1],[5.41,0],[6.393,1],[7.377,0],[8.361,1],[9.344,0],[10.328,1],[11.311,0],[12.295,1],[13.279,0],[14.262,1],[15.246,0],[16.23,1],[17.213,0],[18.197,1],[19.18,0],[20.164,1],[21.148,0],[22.131,1],[23.115,0],[24.098,1],[25.082,0],[26.066,1],[27.049,0],[28.033,1],[29.016,0]]}}}"#, code: 102),
        .error("unknown operator inside $or", #"{"$or":[{"score":{"$bad":1}}]}"#, code: 102),
        .error("unknown operator inside a subquery", #"{"post":{"$inQuery":{"className":"QPost","where":{"title":{"$bad":1}}}}}"#, code: 102),
        .error("malformed where", #"{"score":"#, code: 102),
        .error("where with trailing garbage", #"{"score":1}x"#, code: 102),
        .error("where is an array", #"[{"score":1}]"#, code: 102),
        .error("where is a string", #""score""#, code: 102),
        .error("$in with a number", #"{"score":{"$in":5}}"#, code: 102),
        .error("$in with an object", #"{"score":{"$in":{"a":1}}}"#, code: 102),
        .error("$nin with a string", #"{"name":{"$nin":"alpha"}}"#, code: 102),
        .error("$all with a string", #"{"tags":{"$all":"red"}}"#, code: 102),
        .error("$in with an invalid date", #"{"when":{"$in":[{"__type":"Date","iso":"yesterday"}]}}"#, code: 102),
        .error("$and with an object", #"{"$and":{"score":1}}"#, code: 102),
        .error("$or with an object", #"{"$or":{"score":1}}"#, code: 102),
        .error("$or clause not an object", #"{"$or":[1]}"#, code: 102),
        .error("$exists with a string", #"{"score":{"$exists":"yes"}}"#, code: 102),
        .error("$size negative", #"{"tags":{"$size":-1}}"#, code: 102),
        .error("$size string", #"{"tags":{"$size":"2"}}"#, code: 102),
        .error("$size fraction", #"{"tags":{"$size":1.5}}"#, code: 102),
        .error("invalid regex: open group", #"{"name":{"$regex":"("}}"#, code: 102),
        .error("invalid regex: open class", #"{"name":{"$regex":"[a-"}}"#, code: 102),
        .error("invalid regex: bad quantifier", #"{"name":{"$regex":"*a"}}"#, code: 102),
        .error("$regex with a number", #"{"name":{"$regex":5}}"#, code: 102),
        .error("bad $options letter", #"{"name":{"$regex":"a","$options":"q"}}"#, code: 102),
        .error("bad $options upper case", #"{"name":{"$regex":"a","$options":"I"}}"#, code: 102),
        .error("bad $options among good ones", #"{"name":{"$regex":"a","$options":"imgx"}}"#, code: 102),
        .error("$options not a string", #"{"name":{"$regex":"^A","$options":5}}"#, code: 102),
        .error("$options without $regex", #"{"name":{"$options":"i"}}"#, code: 102),
        .error("invalid Date operand", #"{"when":{"$lt":{"__type":"Date","iso":"not a date"}}}"#, code: 102),
        .error("Date operand without iso", #"{"when":{"__type":"Date"}}"#, code: 102),
        .error("Pointer operand without objectId", #"{"post":{"__type":"Pointer","className":"QPost"}}"#, code: 102),
        .error("invalid key", #"{"a b":1}"#, code: 102),
        .error("invalid key path", #"{"o..x":1}"#, code: 102),
        .error("operators mixed with fields", #"{"o":{"x":1,"$gt":2}}"#, code: 102),
        .error("$inQuery without className", #"{"post":{"$inQuery":{"where":{}}}}"#, code: 102),
        .error("$notInQuery with an invalid className", #"{"post":{"$notInQuery":{"className":"1bad"}}}"#, code: 102),
        .error("$select without key", #"{"name":{"$select":{"query":{"className":"QAuthor"}}}}"#, code: 102),
        .error("$dontSelect without query", #"{"name":{"$dontSelect":{"key":"favorite"}}}"#, code: 102),
        .error("$relatedTo without object", #"{"$relatedTo":{"key":"likes"}}"#, code: 102),
        .error("$relatedTo without key", #"{"$relatedTo":{"object":{"__type":"Pointer","className":"QItem","objectId":"x"}}}"#, code: 102),
        .error("limit -1", nil, ["limit": "-1"], code: 102),
        .error("limit negative", nil, ["limit": "-1"], code: 102),
        .error("limit not a number", nil, ["limit": "ten"], code: 102),
        .error("skip negative", nil, ["skip": "-1"], code: 102),
        .error("skip not a number", nil, ["skip": "1.5"], code: 102),
        .error("order with an invalid key", nil, ["order": "a-b"], code: 102),
        .error("order with an operator", nil, ["order": "$natural"], code: 102),
        .error("order with a bare minus", nil, ["order": "name,-"], code: 102),
        .error("unknown class", #"{}"#, status: 404, code: 101, className: "NoSuchClass"),
        .error("invalid class name", #"{}"#, code: 103, className: "1Bad"),
    ]

    @Test(arguments: cases) func invalidQuery(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }

    /// A rejected query leaves the server serving: the next query answers normally.
    @Test func serverKeepsServingAfterInvalidQueries() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            for testCase in Self.cases where testCase.className == "QItem" {
                try await fixture.check(testCase, api)
            }
            let reply = try await qe2eFind(api, "QItem", ["where": #"{"name":"alpha"}"#])
            #expect(fixture.labels(reply.results) == ["alpha"], "\(reply)")
        }
    }
}
