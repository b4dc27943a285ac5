import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Every kind of value comes back as it was stored, from a fetch, a query and a fetchWhenSave.
@Suite struct ValueRoundTripTests {
    /// Stores `fields` in a new object and returns what a fetch, a query and the creation's
    /// fetchWhenSave answer say about it, after checking the three agree.
    static func roundTrip(
        _ api: API, _ fields: [String: JSONValue], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: JSONValue] {
        let created = try await api.post("/1.1/classes/Thing?fetchWhenSave=true", .object(fields))
        #expect(created.status == .created, "\(created)", sourceLocation: sourceLocation)
        let id = try #require(created.objectId, sourceLocation: sourceLocation)
        let fetched = try #require(try await api.fetch("Thing", id).objectValue, sourceLocation: sourceLocation)
        let found = try await api.results("Thing", ["where": #"{"objectId":"\#(id)"}"#, "returnACL": "true"])
        #expect(found.count == 1, sourceLocation: sourceLocation)
        #expect(found.first == .object(fetched), "query and fetch differ", sourceLocation: sourceLocation)
        #expect(created.json == .object(fetched), "fetchWhenSave and fetch differ", sourceLocation: sourceLocation)
        return fetched
    }

    @Test func datesAreNormalizedToMillisecondUTC() async throws {
        try await TestServer.run { api in
            let object = try await Self.roundTrip(
                api,
                [
                    "plain": date("2024-03-05T06:07:08.123Z"),
                    "noFraction": date("2024-03-05T06:07:08Z"),
                    "offset": date("2024-03-05T14:07:08.5+08:00"),
                    "micro": date("2024-03-05T06:07:08.123456Z"),
                    "negativeOffset": date("2024-03-04T23:07:08-07:00"),
                    "nested": ["when": date("2024-03-05T06:07:08Z"), "list": [date("1999-12-31T23:59:59.999Z")]],
                ])
            #expect(object["plain"] == date("2024-03-05T06:07:08.123Z"))
            #expect(object["noFraction"] == date("2024-03-05T06:07:08.000Z"))
            #expect(object["offset"] == date("2024-03-05T06:07:08.500Z"))
            #expect(object["micro"] == date("2024-03-05T06:07:08.123Z"))
            #expect(object["negativeOffset"] == date("2024-03-05T06:07:08.000Z"))
            #expect(
                object["nested"]
                    == ["when": date("2024-03-05T06:07:08.000Z"), "list": [date("1999-12-31T23:59:59.999Z")]])
        }
    }

    @Test func bytesPointersRelationsFilesAndGeoPoints() async throws {
        try await TestServer.run { api in
            let targetId = try await api.create("Target", ["name": "t"])
            _ = try await api.fetch("Target", targetId)
            let bytes: JSONValue = ["__type": "Bytes", "base64": "aGVsbG8gd29ybGQ="]
            let relation: JSONValue = ["__type": "Relation", "className": "Target"]
            let file: JSONValue = [
                "__type": "File", "objectId": "5f1e2d3c4b5a697887766554", "url": "https://files.example/a.png",
                "name": "a.png", "mime_type": "image/png", "metaData": ["size": 1024, "owner": "unknown"],
            ]
            let geo: JSONValue = ["__type": "GeoPoint", "latitude": 39.9042, "longitude": 116.4074]
            let edge: JSONValue = ["__type": "GeoPoint", "latitude": -90, "longitude": 180]
            let object = try await Self.roundTrip(
                api,
                [
                    "bytes": bytes, "empty": ["__type": "Bytes", "base64": ""], "target": pointer("Target", targetId),
                    "targets": relation, "file": file, "place": geo, "pole": edge,
                ])
            #expect(object["bytes"] == bytes)
            #expect(object["empty"] == ["__type": "Bytes", "base64": ""])
            #expect(object["target"] == pointer("Target", targetId))
            #expect(object["targets"] == relation)
            // Only the reference is kept: a File's url and name come from its `_File`, and there is none here.
            #expect(object["file"] == ["__type": "File", "objectId": "5f1e2d3c4b5a697887766554"])
            #expect(object["place"] == geo)
            #expect(object["pole"] == edge)
        }
    }

    @Test func aFullObjectValueIsStoredAsAPointer() async throws {
        try await TestServer.run { api in
            let targetId = try await api.create("Target", ["name": "t"])
            _ = try await api.fetch("Target", targetId)
            let object = try await Self.roundTrip(
                api, ["target": ["__type": "Object", "className": "Target", "objectId": .string(targetId), "name": "t"]])
            #expect(object["target"] == pointer("Target", targetId))
        }
    }

    @Test func filesReferencedByIdKeepTheirId() async throws {
        try await TestServer.run { api in
            let object = try await Self.roundTrip(api, ["file": ["__type": "File", "id": "abc123"]])
            #expect(object["file"] == ["__type": "File", "objectId": "abc123"])
        }
    }

    @Test func nestedObjectsAndArraysRoundTripExactly() async throws {
        try await TestServer.run { api in
            let nested = try json(
                #"""
                {"a": [1, 2.5, "x", true, false, null, {"b": {"c": [], "d": {}}}, [[1], [2, [3]]]],
                 "e": {"f": {"g": {"h": "deep"}}}, "empty": {}, "list": []}
                """#)
            let object = try await Self.roundTrip(api, ["meta": nested, "matrix": [[1, 2], [3, 4]]])
            #expect(object["meta"] == nested)
            #expect(object["matrix"] == [[1, 2], [3, 4]])
        }
    }

    @Test func nullAndBooleansRoundTrip() async throws {
        try await TestServer.run { api in
            let object = try await Self.roundTrip(api, ["nothing": nil, "yes": true, "no": false])
            #expect(object["nothing"] == .null)
            #expect(object["yes"] == .bool(true))
            #expect(object["no"] == .bool(false))
        }
    }

    @Test func integersStayIntegersExactly() async throws {
        try await TestServer.run { api in
            let values: [String: JSONValue] = [
                "zero": .int(0), "one": .int(1), "negative": .int(-42), "beyondDouble": .int(9_007_199_254_740_993),
                "max": .int(Int64.max), "min": .int(Int64.min),
            ]
            let object = try await Self.roundTrip(api, values)
            for (key, value) in values { #expect(object[key] == value, "\(key)") }

            // On the wire too: no fraction, no exponent.
            let id = try #require(object["objectId"]?.stringValue)
            let text = try await api.get("/1.1/classes/Thing/\(id)").text
            #expect(text.contains(#""beyondDouble":9007199254740993"#), "\(text)")
            #expect(text.contains(#""max":9223372036854775807"#), "\(text)")
            #expect(text.contains(#""one":1,"#) || text.contains(#""one":1}"#), "\(text)")
        }
    }

    @Test func doublesRoundTrip() async throws {
        try await TestServer.run { api in
            let values: [String: JSONValue] = [
                "pi": .double(3.14159), "half": .double(-0.5), "tiny": .double(1e-7), "huge": .double(1.5e300),
                "third": .double(1.0 / 3.0), "big": .double(12_345_678.9),
            ]
            let object = try await Self.roundTrip(api, values)
            for (key, value) in values { #expect(object[key] == value, "\(key): \(String(describing: object[key]))") }
        }
    }

    @Test func stringsRoundTripWithEscapesAndUnicode() async throws {
        try await TestServer.run { api in
            let values: [String: JSONValue] = [
                "quoted": "say \"hi\" \\ back/slash", "lines": "a\nb\r\nc\td", "control": "\u{01}\u{1F}",
                "unicode": "héllo wörld 你好 🌍", "empty": "",
            ]
            let object = try await Self.roundTrip(api, values)
            for (key, value) in values { #expect(object[key] == value, "\(key)") }
            // Escaped input decodes to the same characters.
            let escaped = try await api.send(
                .post, "/1.1/classes/Thing", body: #"{"s":"\u00e9\ud83c\udf0d\/"}"#)
            let id = try #require(escaped.objectId, "\(escaped)")
            #expect(try await api.fetch("Thing", id)["s"] == "é🌍/")
        }
    }

    @Test func updatesRoundTripTypedValuesToo() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Thing", ["when": date("2020-01-01T00:00:00Z"), "n": 1])
            let reply = try await api.put(
                "/1.1/classes/Thing/\(id)?fetchWhenSave=true",
                ["when": date("2021-06-01T12:00:00+02:00"), "n": 2.5, "blob": ["__type": "Bytes", "base64": "AAEC"]])
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply["when"] == date("2021-06-01T10:00:00.000Z"))
            let object = try await api.fetch("Thing", id)
            #expect(object["when"] == date("2021-06-01T10:00:00.000Z"))
            #expect(object["n"] == .double(2.5))
            #expect(object["blob"] == ["__type": "Bytes", "base64": "AAEC"])
        }
    }

    @Test(arguments: [
        #"{"d":{"__type":"Date","iso":"yesterday"}}"#,
        #"{"d":{"__type":"Date","iso":"2024-13-01T00:00:00Z"}}"#,
        #"{"d":{"__type":"Date"}}"#,
        #"{"d":{"__type":"Bytes","base64":"not base64!"}}"#,
        #"{"d":{"__type":"Bytes","base64":"abc"}}"#,
        #"{"d":{"__type":"File"}}"#,
        #"{"d":{"__type":7}}"#,
    ])
    func malformedTypedValuesAre111(body: String) async throws {
        try await TestServer.run { api in
            _ = try await api.create("Thing", ["n": 1])
            let reply = try await api.send(.post, "/1.1/classes/Thing", body: body)
            expectError(reply, code: 111, status: .badRequest)
            #expect(try await api.count("Thing") == 1)
        }
    }
}
