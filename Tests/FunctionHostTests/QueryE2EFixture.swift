import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

// Shared fixture and table runner of the QueryE2E* suites: every case starts a real server on
// loopback with its own data directory, seeds the same data over HTTP, sends one query and
// checks the objects it answers.
//
// Names here carry a `QE2E`/`qe2e` prefix so they can't collide with other test files.

/// The seeded data, by label. Every object is identified by its label (`alpha`, `Ann`, `p1`, ...)
/// through its objectId, so even an object without any field (`empty`) can be named.
///
/// `QItem` (created in this order):
///
/// | label   | name    | score | text                              | flag  | when                     | tags             | nums    | post | loc    | o              | likes    |
/// |---------|---------|-------|-----------------------------------|-------|--------------------------|------------------|---------|------|--------|----------------|----------|
/// | alpha   | alpha   | 10    | "first line\nsecond line"         | true  | 2024-01-15T10:00:00.000Z | [red, green]     | [1,2,3] | p1   | SF     | {x:3, y:"c"}   | Ann, Ben |
/// | Bravo   | Bravo   | 2.5   | "Hello World"                     | false | 2023-06-01T00:00:00.000Z | [blue]           | [10]    | p2   | NY     | {x:1}          | Ann      |
/// | charlie | charlie | -7    | "line one\nLINE TWO\nline three"  | true  | 2025-03-03T03:03:03.333Z | [red, blue, green] | [2,4.5] | p1 | London | {x:2}          | Cal      |
/// | Délice  | Délice  | 100   | "café au lait"                    | false | 2024-01-15T10:00:00.001Z | []               | []      | p2   | Paris  | {x:2.5}        |          |
/// | 東京    | 東京    | 0     | "tokyo tower"                     | true  |                          | [red]            | [3]     |      | Tokyo  |                |          |
/// | zulu    | zulu    | 10.0  | "abc"                             |       | 2022-12-31T23:59:59.999Z |                  |         | p3   | Sydney | {x:-1}         |          |
/// | empty   |         |       |                                   |       |                          |                  |         |      |        |                |          |
/// | omega   | omega   |       |                                   | true  |                          | [GREEN]          | [-1]    |      |        |                |          |
///
/// alpha also has `refs` = [Pointer Ann, Pointer Cal] and Bravo `refs` = [Pointer Ben] (an array of
/// pointers); charlie's `o` also has `z` = `a"b⏎/é` (a string that needs escaping).
///
/// `QAuthor`: Ann {country FR, favorite "alpha", lucky 10}, Ben {US, "zulu", 0}, Cal {JP, "nothing", 7}, Dee {}.
/// `QPost`: p1 {title Hello, author Ann}, p2 {title World, author Ben}, p3 {title Orphan, no author}.
/// `likes` is a Relation of QItem to QAuthor, filled with AddRelation after every object exists.
struct QE2EFixture: Sendable {
    static let itemClass = "QItem"
    static let authorClass = "QAuthor"
    static let postClass = "QPost"

    /// objectId by label.
    private(set) var ids: [String: String] = [:]
    /// label by objectId.
    private(set) var labels: [String: String] = [:]
    /// The QItem labels in creation order.
    private(set) var itemOrder: [String] = []
    /// `createdAt` and `updatedAt` of every QItem as the server reports them after seeding.
    private(set) var createdAt: [String: String] = [:]
    private(set) var updatedAt: [String: String] = [:]

    static let authors: [(String, String)] = [
        ("Ann", #"{"name":"Ann","country":"FR","favorite":"alpha","lucky":10}"#),
        ("Ben", #"{"name":"Ben","country":"US","favorite":"zulu","lucky":0}"#),
        ("Cal", #"{"name":"Cal","country":"JP","favorite":"nothing","lucky":7}"#),
        ("Dee", #"{"name":"Dee"}"#),
    ]

    static let posts: [(String, String)] = [
        ("p1", #"{"title":"Hello","author":{"__type":"Pointer","className":"QAuthor","objectId":"@id:Ann"}}"#),
        ("p2", #"{"title":"World","author":{"__type":"Pointer","className":"QAuthor","objectId":"@id:Ben"}}"#),
        ("p3", #"{"title":"Orphan"}"#),
    ]

    static let items: [(String, String)] = [
        (
            "alpha",
            #"{"name":"alpha","score":10,"text":"first line\nsecond line","flag":true,"when":{"__type":"Date","iso":"2024-01-15T10:00:00.000Z"},"tags":["red","green"],"nums":[1,2,3],"post":{"__type":"Pointer","className":"QPost","objectId":"@id:p1"},"loc":{"__type":"GeoPoint","latitude":37.7749,"longitude":-122.4194},"o":{"x":3,"y":"c"},"refs":[{"__type":"Pointer","className":"QAuthor","objectId":"@id:Ann"},{"__type":"Pointer","className":"QAuthor","objectId":"@id:Cal"}]}"#
        ),
        (
            "Bravo",
            #"{"name":"Bravo","score":2.5,"text":"Hello World","flag":false,"when":{"__type":"Date","iso":"2023-06-01T00:00:00.000Z"},"tags":["blue"],"nums":[10],"post":{"__type":"Pointer","className":"QPost","objectId":"@id:p2"},"loc":{"__type":"GeoPoint","latitude":40.7128,"longitude":-74.006},"o":{"x":1},"refs":[{"__type":"Pointer","className":"QAuthor","objectId":"@id:Ben"}]}"#
        ),
        (
            "charlie",
            #"{"name":"charlie","score":-7,"text":"line one\nLINE TWO\nline three","flag":true,"when":{"__type":"Date","iso":"2025-03-03T03:03:03.333Z"},"tags":["red","blue","green"],"nums":[2,4.5],"post":{"__type":"Pointer","className":"QPost","objectId":"@id:p1"},"loc":{"__type":"GeoPoint","latitude":51.5074,"longitude":-0.1278},"o":{"x":2,"z":"a\"b\n/é"}}"#
        ),
        (
            "Délice",
            #"{"name":"Délice","score":100,"text":"café au lait","flag":false,"when":{"__type":"Date","iso":"2024-01-15T10:00:00.001Z"},"tags":[],"nums":[],"post":{"__type":"Pointer","className":"QPost","objectId":"@id:p2"},"loc":{"__type":"GeoPoint","latitude":48.8566,"longitude":2.3522},"o":{"x":2.5}}"#
        ),
        (
            "東京",
            #"{"name":"東京","score":0,"text":"tokyo tower","flag":true,"tags":["red"],"nums":[3],"loc":{"__type":"GeoPoint","latitude":35.6762,"longitude":139.6503}}"#
        ),
        (
            "zulu",
            #"{"name":"zulu","score":10.0,"text":"abc","when":{"__type":"Date","iso":"2022-12-31T23:59:59.999Z"},"post":{"__type":"Pointer","className":"QPost","objectId":"@id:p3"},"loc":{"__type":"GeoPoint","latitude":-33.8688,"longitude":151.2093},"o":{"x":-1}}"#
        ),
        ("empty", #"{}"#),
        ("omega", #"{"name":"omega","flag":true,"tags":["GREEN"],"nums":[-1]}"#),
    ]

    /// The members of each owner's `likes` Relation.
    static let likes: [(String, [String])] = [("alpha", ["Ann", "Ben"]), ("Bravo", ["Ann"]), ("charlie", ["Cal"])]

    /// Every QItem label, in creation order.
    static var allItems: [String] { items.map(\.0) }

    /// Seeds the data through the REST API with the master key.
    static func seed(_ api: API, sourceLocation: SourceLocation = #_sourceLocation) async throws -> QE2EFixture {
        var fixture = QE2EFixture()
        for (label, body) in authors {
            try await fixture.create(api, authorClass, label, body, sourceLocation: sourceLocation)
        }
        for (label, body) in posts {
            try await fixture.create(api, postClass, label, body, sourceLocation: sourceLocation)
        }
        for (label, body) in items {
            try await fixture.create(api, itemClass, label, body, sourceLocation: sourceLocation)
            fixture.itemOrder.append(label)
        }
        for (owner, members) in likes {
            let objects = members.map { #"{"__type":"Pointer","className":"QAuthor","objectId":"@id:\#($0)"}"# }
            let body = #"{"likes":{"__op":"AddRelation","objects":[\#(objects.joined(separator: ","))]}}"#
            let reply = try await api.send(
                .put, "/1.1/classes/\(itemClass)/\(fixture.ids[owner]!)", headers: Headers.master,
                body: fixture.substitute(body))
            #expect(reply.status == .ok, "AddRelation on \(owner): \(reply)", sourceLocation: sourceLocation)
        }
        // The timestamps, as stored.
        let reply = try await api.get("/1.1/classes/\(itemClass)?limit=1000", headers: Headers.master)
        #expect(reply.status == .ok, "list: \(reply)", sourceLocation: sourceLocation)
        for object in reply.results {
            let label = fixture.label(object)
            fixture.createdAt[label] = object["createdAt"]?.stringValue
            fixture.updatedAt[label] = object["updatedAt"]?.stringValue
        }
        try #require(fixture.createdAt.count == items.count, "seeded items: \(reply)", sourceLocation: sourceLocation)
        return fixture
    }

    private mutating func create(
        _ api: API, _ className: String, _ label: String, _ body: String, sourceLocation: SourceLocation
    ) async throws {
        let reply = try await api.send(
            .post, "/1.1/classes/\(className)", headers: Headers.master, body: substitute(body))
        #expect(reply.status == .created, "create \(label): \(reply)", sourceLocation: sourceLocation)
        let id = try #require(reply.objectId, "create \(label): \(reply)", sourceLocation: sourceLocation)
        ids[label] = id
        labels[id] = label
    }

    /// `text` with `@id:<label>`, `@created:<label>` and `@updated:<label>` replaced by that
    /// object's objectId, createdAt or updatedAt (ASCII labels only).
    func substitute(_ text: String) -> String {
        text.replacing(/@(id|created|updated):([A-Za-z0-9]+)/) { match in
            let label = String(match.output.2)
            switch match.output.1 {
            case "id": return ids[label] ?? "<no id for \(label)>"
            case "created": return createdAt[label] ?? "<no createdAt for \(label)>"
            default: return updatedAt[label] ?? "<no updatedAt for \(label)>"
            }
        }
    }

    /// The label of a result object (`?<objectId>` when unknown).
    func label(_ object: JSONValue) -> String {
        let id = object["objectId"]?.stringValue ?? "<no objectId>"
        return labels[id] ?? "?\(id)"
    }

    /// The labels of results, in order.
    func labels(_ results: [JSONValue]) -> [String] { results.map(label) }

    /// A timestamp of a QItem: `createdAt` or `updatedAt`.
    func timestamp(_ key: String, _ label: String) -> String {
        (key == "createdAt" ? createdAt[label] : updatedAt[label]) ?? ""
    }

    /// The expected labels of a computed expectation.
    func evaluate(_ oracle: QE2EOracle) -> [String] {
        switch oracle {
        case .timestampFilter(let key, "$in", let referenceKey, let references):
            // `reference` lists labels separated by `|`.
            let bounds = Set(references.split(separator: "|").map { timestamp(referenceKey, String($0)) })
            return itemOrder.filter { bounds.contains(timestamp(key, $0)) }
        case .timestampFilter(let key, let op, let referenceKey, let reference):
            let bound = timestamp(referenceKey, reference)
            return itemOrder.filter { label in
                let value = timestamp(key, label)
                switch op {
                case "$lt": return value < bound
                case "$lte": return value <= bound
                case "$gt": return value > bound
                case "$gte": return value >= bound
                case "$ne": return value != bound
                default: return value == bound
                }
            }
        case .timestampOrder(let key, let descending):
            // As the engine sorts: by the key, ties in creation order.
            return itemOrder.enumerated().sorted { a, b in
                let x = timestamp(key, a.element)
                let y = timestamp(key, b.element)
                if x != y { return descending ? x > y : x < y }
                return a.offset < b.offset
            }.map(\.element)
        }
    }
}

/// Expected results computed from the seeded timestamps (they depend on the clock).
enum QE2EOracle: Sendable, Hashable {
    /// QItems whose `key` compares with `op` to `referenceKey` of the `reference` object (for
    /// `$in`, of any of the `|`-separated objects).
    case timestampFilter(key: String, op: String, referenceKey: String, reference: String)
    /// Every QItem ordered by `createdAt`/`updatedAt`.
    case timestampOrder(key: String, descending: Bool)
}

/// What a query must answer.
enum QE2EExpectation: Sendable, Hashable {
    /// Exactly these objects, in any order, each once.
    case set([String])
    /// Exactly these objects in this order.
    case ordered([String])
    /// A set computed from the seeded data.
    case computedSet(QE2EOracle)
    /// An order computed from the seeded data.
    case computedOrder(QE2EOracle)
    /// A LeanCloud error answer.
    case error(status: Int, code: Int)
}

/// One row of a query table.
struct QE2ECase: Sendable, CustomTestStringConvertible {
    let name: String
    let className: String
    /// The `where` parameter (placeholders allowed), or nil for none.
    let whereJSON: String?
    /// Other parameters (`order`, `limit`, ...; placeholders allowed).
    let parameters: [String: String]
    let expectation: QE2EExpectation

    var testDescription: String { name }

    /// A query whose results are exactly `expected`, in any order.
    static func set(
        _ name: String, _ whereJSON: String?, _ expected: [String], _ parameters: [String: String] = [:],
        className: String = QE2EFixture.itemClass
    ) -> QE2ECase {
        QE2ECase(name: name, className: className, whereJSON: whereJSON, parameters: parameters, expectation: .set(expected))
    }

    /// A query whose results are exactly `expected`, in this order.
    static func ordered(
        _ name: String, _ whereJSON: String?, _ expected: [String], _ parameters: [String: String] = [:],
        className: String = QE2EFixture.itemClass
    ) -> QE2ECase {
        QE2ECase(
            name: name, className: className, whereJSON: whereJSON, parameters: parameters, expectation: .ordered(expected))
    }

    /// A query answered with an error.
    static func error(
        _ name: String, _ whereJSON: String?, _ parameters: [String: String] = [:], status: Int = 400, code: Int,
        className: String = QE2EFixture.itemClass
    ) -> QE2ECase {
        QE2ECase(
            name: name, className: className, whereJSON: whereJSON, parameters: parameters,
            expectation: .error(status: status, code: code))
    }

    /// A query whose expected results are computed from the seeded timestamps.
    static func computed(
        _ name: String, _ whereJSON: String?, _ oracle: QE2EOracle, ordered: Bool = false,
        _ parameters: [String: String] = [:]
    ) -> QE2ECase {
        QE2ECase(
            name: name, className: QE2EFixture.itemClass, whereJSON: whereJSON, parameters: parameters,
            expectation: ordered ? .computedOrder(oracle) : .computedSet(oracle))
    }
}

/// `?a=1&b=2`, keys sorted, everything but ASCII letters and digits percent-encoded (UTF-8).
func qe2eQueryString(_ parameters: [String: String]) -> String {
    if parameters.isEmpty { return "" }
    let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed)! }
    return "?" + parameters.keys.sorted().map { "\(encode($0))=\(encode(parameters[$0]!))" }.joined(separator: "&")
}

/// `GET /1.1/classes/{class}` with parameters.
func qe2eFind(
    _ api: API, _ className: String, _ parameters: [String: String], headers: HTTPFields = Headers.client
) async throws -> Reply {
    try await api.get("/1.1/classes/\(className)" + qe2eQueryString(parameters), headers: headers)
}

/// Checks a LeanCloud error answer: this status (never 500), exactly `{"code", "error"}`, this code.
func qe2eExpectError(
    _ reply: Reply, status: Int, code: Int, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply.status.code == status, "\(context): status of \(reply)", sourceLocation: sourceLocation)
    #expect(reply["code"] == .int(Int64(code)), "\(context): code of \(reply)", sourceLocation: sourceLocation)
    #expect(
        reply["error"]?.stringValue.map { !$0.isEmpty } == true, "\(context): message of \(reply)",
        sourceLocation: sourceLocation)
    #expect(
        Set(reply.json?.objectValue.map { Array($0.keys) } ?? []) == ["code", "error"], "\(context): members of \(reply)",
        sourceLocation: sourceLocation)
}

extension QE2EFixture {
    /// Runs one table case against this fixture.
    func check(_ testCase: QE2ECase, _ api: API, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var parameters = testCase.parameters.mapValues(substitute)
        if let whereJSON = testCase.whereJSON { parameters["where"] = substitute(whereJSON) }
        let reply = try await qe2eFind(api, testCase.className, parameters)
        let context = "\(testCase.name) \(parameters)"

        let expected: [String]
        let ordered: Bool
        switch testCase.expectation {
        case .error(let status, let code):
            qe2eExpectError(reply, status: status, code: code, context, sourceLocation: sourceLocation)
            return
        case .set(let list): (expected, ordered) = (list, false)
        case .ordered(let list): (expected, ordered) = (list, true)
        case .computedSet(let oracle): (expected, ordered) = (evaluate(oracle), false)
        case .computedOrder(let oracle): (expected, ordered) = (evaluate(oracle), true)
        }

        #expect(reply.status == .ok, "\(context): \(reply)", sourceLocation: sourceLocation)
        let results = try #require(reply["results"]?.arrayValue, "\(context): \(reply)", sourceLocation: sourceLocation)
        let got = labels(results)
        if ordered {
            #expect(got == expected, "\(context)", sourceLocation: sourceLocation)
        } else {
            // Sorted lists: the same members, and none twice.
            #expect(got.sorted() == expected.sorted(), "\(context)", sourceLocation: sourceLocation)
        }

        // The count of the same condition agrees, with and without results.
        guard ["limit", "skip", "count"].allSatisfy({ parameters[$0] == nil }) else { return }
        var counting = parameters
        counting["count"] = "1"
        let withResults = try await qe2eFind(api, testCase.className, counting)
        #expect(withResults["count"] == .int(Int64(expected.count)), "\(context) count: \(withResults)", sourceLocation: sourceLocation)
        #expect(withResults.results.count == expected.count, "\(context) count: \(withResults)", sourceLocation: sourceLocation)
        counting["limit"] = "0"
        let countOnly = try await qe2eFind(api, testCase.className, counting)
        #expect(countOnly.status == .ok, "\(context) limit=0: \(countOnly)", sourceLocation: sourceLocation)
        #expect(countOnly["count"] == .int(Int64(expected.count)), "\(context) limit=0: \(countOnly)", sourceLocation: sourceLocation)
        #expect(countOnly["results"] == .array([]), "\(context) limit=0: \(countOnly)", sourceLocation: sourceLocation)
    }
}

/// Starts a server, seeds the fixture and checks one case.
func qe2eRun(_ testCase: QE2ECase, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await TestServer.run { api in
        let fixture = try await QE2EFixture.seed(api, sourceLocation: sourceLocation)
        try await fixture.check(testCase, api, sourceLocation: sourceLocation)
    }
}
