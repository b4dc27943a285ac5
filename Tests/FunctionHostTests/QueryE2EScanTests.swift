import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// `GET /1.1/scan/classes/{Class}`: with the master key, pages through a class by `cursor`
/// (base64 of the last objectId, null after the last page), every object exactly once.
@Suite struct QueryE2EScanTests {
    /// One page of a scan.
    struct Page {
        let ids: [String]
        let cursor: String?
    }

    /// Walks a scan to its end, checking each page; returns the pages.
    static func walk(
        _ api: API, _ className: String, limit: Int, where condition: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [Page] {
        var pages: [Page] = []
        var cursor: String?
        repeat {
            var parameters = ["limit": String(limit)]
            if let cursor { parameters["cursor"] = cursor }
            if let condition { parameters["where"] = condition }
            let reply = try await api.get(
                "/1.1/scan/classes/\(className)" + qe2eQueryString(parameters), headers: Headers.master)
            #expect(reply.status == .ok, "scan \(parameters): \(reply)", sourceLocation: sourceLocation)
            let results = try #require(reply["results"]?.arrayValue, "\(reply)", sourceLocation: sourceLocation)
            #expect(results.count <= limit, sourceLocation: sourceLocation)
            let ids = results.compactMap { $0["objectId"]?.stringValue }
            #expect(ids.count == results.count, sourceLocation: sourceLocation)
            for object in results {
                #expect(object["createdAt"]?.stringValue != nil, "\(object)", sourceLocation: sourceLocation)
            }
            switch reply["cursor"] {
            case .null?:
                cursor = nil
            case .string(let next)?:
                // The cursor is base64 of the page's last objectId.
                let decoded = Data(base64Encoded: next).flatMap { String(data: $0, encoding: .utf8) }
                #expect(decoded == ids.last, "cursor \(next)", sourceLocation: sourceLocation)
                #expect(!ids.isEmpty, "a cursor after an empty page", sourceLocation: sourceLocation)
                cursor = next
            default:
                Issue.record("no cursor member in \(reply)", sourceLocation: sourceLocation)
                cursor = nil
            }
            pages.append(Page(ids: ids, cursor: cursor))
            try #require(pages.count <= 1000, "the scan doesn't end", sourceLocation: sourceLocation)
        } while cursor != nil
        return pages
    }

    @Test(arguments: [1, 2, 3, 7, 8, 9, 1000])
    func scanVisitsEveryObjectOnce(limit: Int) async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let pages = try await Self.walk(api, "QItem", limit: limit)
            let ids = pages.flatMap(\.ids)
            let expected = QE2EFixture.allItems.map { fixture.ids[$0]! }
            #expect(ids.count == expected.count)
            #expect(Set(ids) == Set(expected))
            #expect(ids == ids.sorted(), "scan order is objectId order")
            // Full pages until the last, which is short (empty when the count divides evenly).
            #expect(pages.count == expected.count / limit + 1, "\(pages.map(\.ids.count))")
            #expect(pages.dropLast().allSatisfy { $0.ids.count == limit })
            #expect(pages.last?.ids.count == expected.count % limit)
        }
    }

    @Test func scanWithWhere() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let pages = try await Self.walk(api, "QItem", limit: 1, where: #"{"flag":true}"#)
            #expect(fixture.labels(pages.flatMap(\.ids).map { .object(["objectId": .string($0)]) }).sorted()
                == ["alpha", "charlie", "omega", "東京"].sorted())
            #expect(pages.count == 5)
            let none = try await Self.walk(api, "QItem", limit: 10, where: #"{"name":"nobody"}"#)
            #expect(none.count == 1)
            #expect(none.first?.ids == [])
        }
    }

    @Test func scanPagesThroughALargeClass() async throws {
        try await TestServer.run { api in
            let total = 250
            var index = 0
            while index < total {
                let end = min(index + 100, total)
                let requests = (index..<end).map { i in
                    #"{"method":"POST","path":"/1.1/classes/QBulk","body":{"index":\#(i)}}"#
                }
                let reply = try await api.send(
                    .post, "/1.1/batch", headers: Headers.master, body: #"{"requests":[\#(requests.joined(separator: ","))]}"#)
                #expect(reply.status == .ok, "\(reply.status)")
                #expect((reply.json?.arrayValue ?? []).allSatisfy { $0["success"] != nil }, "\(reply.text.prefix(300))")
                index = end
            }
            let pages = try await Self.walk(api, "QBulk", limit: 100)
            #expect(pages.map(\.ids.count) == [100, 100, 50])
            let ids = pages.flatMap(\.ids)
            #expect(Set(ids).count == total)
            #expect(ids == ids.sorted())
            // Every index exactly once, read back through a query too.
            let counted = try await qe2eFind(api, "QBulk", ["count": "1", "limit": "0"])
            #expect(counted["count"] == .int(Int64(total)), "\(counted)")
        }
    }

    @Test func scanNeedsTheMasterKey() async throws {
        try await TestServer.run { api in
            _ = try await QE2EFixture.seed(api)
            let client = try await api.get("/1.1/scan/classes/QItem?limit=10", headers: Headers.client)
            qe2eExpectError(client, status: 403, code: 119, "scan with the client key")
            let anonymous = try await api.get("/1.1/scan/classes/QItem?limit=10", headers: Headers.none)
            #expect(anonymous.status == .unauthorized, "\(anonymous)")
            #expect(anonymous["code"] == 401, "\(anonymous)")
        }
    }

    @Test(arguments: [
        (["limit": "0"], "limit 0"),
        (["limit": "1001"], "limit 1001"),
        (["limit": "many"], "limit not a number"),
        (["cursor": "!!not base64!!"], "invalid cursor"),
        (["scan_key": "name.first"], "a dotted scan_key"),
        (["scan_key": "-"], "a scan_key of only a minus"),
        (["where": #"{"score":{"$bad":1}}"#], "invalid where"),
        (["where": #"{"score""#], "malformed where"),
    ])
    func invalidScans(parameters: [String: String], name: String) async throws {
        try await TestServer.run { api in
            _ = try await QE2EFixture.seed(api)
            let reply = try await api.get("/1.1/scan/classes/QItem" + qe2eQueryString(parameters), headers: Headers.master)
            qe2eExpectError(reply, status: 400, code: 102, name)
        }
    }
}
