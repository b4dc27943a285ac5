import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("Typed values in request bodies")
struct ValueNormalizerTests {
    let normalizer = DataAPITests.normalizer(knowing: ["Author", "_User"])

    @Test("Plain values are stored as given")
    func plainValues() throws {
        let values: [JSONValue] = [nil, true, 7, 2.5, "text", [1, "a", [nil]], ["nested": ["deep": [1, 2]]]]
        for value in values {
            #expect(try normalizer.normalize(value, field: "f") == value)
        }
    }

    @Test("Dates are rewritten to canonical UTC text")
    func dates() throws {
        let value = try normalizer.normalize(date("2017-11-11T15:19:15+08:00"), field: "when")
        #expect(value == date("2017-11-11T07:19:15.000Z"))
        // Inside arrays and nested objects too.
        let nested = try normalizer.normalize(["at": [date("2000-01-01")]], field: "meta")
        #expect(nested == ["at": [date("2000-01-01T00:00:00.000Z")]])
    }

    @Test("Extra members of a Date are dropped")
    func dateExtraMembers() throws {
        let value: JSONValue = ["__type": "Date", "iso": "2000-01-01T00:00:00Z", "junk": 1]
        #expect(try normalizer.normalize(value, field: "d") == date("2000-01-01T00:00:00.000Z"))
    }

    @Test(
        "Malformed Dates throw 111",
        arguments: [
            #"{"__type":"Date"}"#, #"{"__type":"Date","iso":"yesterday"}"#, #"{"__type":"Date","iso":12}"#,
        ])
    func badDates(text: String) throws {
        let value = try json(text)
        expectDataAPIError(111) { _ = try normalizer.normalize(value, field: "d") }
    }

    @Test("Bytes keep their base64 text", arguments: ["", "AQID", "aGVsbG8=", "aGk=", "aGVs\nbG8="])
    func bytes(base64: String) throws {
        let value: JSONValue = ["__type": "Bytes", "base64": .string(base64)]
        #expect(try normalizer.normalize(value, field: "b") == value)
    }

    @Test("Invalid base64 throws 111", arguments: ["abc", "a===", "ab=c", "!!!!", "aGVsbG8=="])
    func badBytes(base64: String) {
        let value: JSONValue = ["__type": "Bytes", "base64": .string(base64)]
        expectDataAPIError(111) { _ = try normalizer.normalize(value, field: "b") }
    }

    @Test("A Pointer to a known class is kept; an Object becomes a Pointer")
    func pointers() throws {
        #expect(try normalizer.normalize(pointer("Author", "a1"), field: "author") == pointer("Author", "a1"))
        let full: JSONValue = ["__type": "Object", "className": "Author", "objectId": "a1", "name": "Ann"]
        #expect(try normalizer.normalize(full, field: "author") == pointer("Author", "a1"))
        #expect(try normalizer.normalize(pointer("_User", "u1"), field: "owner") == pointer("_User", "u1"))
    }

    @Test("A Pointer to a class that does not exist throws 106")
    func pointerToUnknownClass() {
        let error = expectDataAPIError(106) { _ = try normalizer.normalize(pointer("Nobody", "x"), field: "p") }
        #expect(error?.message.contains("Nobody") == true)
        expectDataAPIError(106) { _ = try normalizer.normalize(pointer("_Foo", "x"), field: "p") }
    }

    @Test(
        "Pointers without className or objectId throw 106",
        arguments: [
            #"{"__type":"Pointer","className":"Author"}"#, #"{"__type":"Pointer","objectId":"x"}"#,
            #"{"__type":"Pointer","className":"Author","objectId":""}"#,
            #"{"__type":"Pointer","className":"Author","objectId":5}"#,
        ])
    func malformedPointers(text: String) throws {
        let value = try json(text)
        expectDataAPIError(106) { _ = try normalizer.normalize(value, field: "p") }
    }

    @Test("GeoPoints within range are kept, including the limits")
    func geoPoints() throws {
        for (lat, lon) in [(0.0, 0.0), (39.9, 116.4), (-90.0, -180.0), (90.0, 180.0)] {
            let value: JSONValue = ["__type": "GeoPoint", "latitude": .double(lat), "longitude": .double(lon)]
            #expect(try normalizer.normalize(value, field: "at") == value)
        }
        let ints: JSONValue = ["__type": "GeoPoint", "latitude": 10, "longitude": 20]
        #expect(try normalizer.normalize(ints, field: "at") == ints)
    }

    @Test(
        "GeoPoints out of range or incomplete throw 302",
        arguments: [
            #"{"__type":"GeoPoint","latitude":90.5,"longitude":0}"#,
            #"{"__type":"GeoPoint","latitude":-91,"longitude":0}"#,
            #"{"__type":"GeoPoint","latitude":0,"longitude":180.01}"#,
            #"{"__type":"GeoPoint","latitude":0,"longitude":-181}"#,
            #"{"__type":"GeoPoint","latitude":0}"#,
            #"{"__type":"GeoPoint","latitude":"1","longitude":"2"}"#,
        ])
    func badGeoPoints(text: String) throws {
        let value = try json(text)
        expectDataAPIError(302) { _ = try normalizer.normalize(value, field: "at") }
    }

    @Test("Files need an id (objectId or id) and are stored as a reference to their _File")
    func files() throws {
        let sent: JSONValue = [
            "__type": "File", "id": "f1", "url": "https://x/y.png", "name": "y.png", "secret": "drop me",
        ]
        // A client's url or name is never stored: answers fill them in from the _File.
        #expect(try normalizer.normalize(sent, field: "file") == ["__type": "File", "objectId": "f1"])
        expectDataAPIError(111) { _ = try normalizer.normalize(["__type": "File"], field: "file") }
        expectDataAPIError(111) { _ = try normalizer.normalize(["__type": "File", "objectId": ""], field: "file") }
    }

    @Test("Relations need a valid class name, else 128")
    func relations() throws {
        let relation: JSONValue = ["__type": "Relation", "className": "Author"]
        #expect(try normalizer.normalize(relation, field: "r") == relation)
        expectDataAPIError(128) { _ = try normalizer.normalize(["__type": "Relation"], field: "r") }
        expectDataAPIError(128) {
            _ = try normalizer.normalize(["__type": "Relation", "className": "bad-name"], field: "r")
        }
    }

    @Test("Unknown or non-string __type throws 111")
    func unknownType() {
        let unknown = expectDataAPIError(111) { _ = try normalizer.normalize(["__type": "Polygon"], field: "x") }
        #expect(unknown?.message.contains("Polygon") == true)
        expectDataAPIError(111) { _ = try normalizer.normalize(["__type": 1], field: "x") }
        expectDataAPIError(111) { _ = try normalizer.normalize([["__type": "Nope"]], field: "x") }
    }

    @Test(
        "Nested keys with $, a dot, a leading __ or nothing throw 121",
        arguments: ["$set", "a$b", "a.b", "__secret", ""])
    func badNestedKeys(key: String) {
        let value: JSONValue = ["ok": ["inner": .object([key: 1])]]
        expectDataAPIError(121) { _ = try normalizer.normalize(value, field: "meta") }
    }

    @Test("A single leading underscore is fine in nested keys")
    func underscoreNestedKey() throws {
        let value: JSONValue = ["_x": 1, "x_": ["_y": 2]]
        #expect(try normalizer.normalize(value, field: "meta") == value)
    }

    @Test("Operations nested below the top level throw 111")
    func nestedOperation() {
        let value: JSONValue = ["counter": ["__op": "Increment", "amount": 1]]
        expectDataAPIError(111) { _ = try normalizer.normalize(value, field: "meta") }
    }

    @Test("Values nested 64 levels deep throw 111; 63 is fine")
    func nestingLimit() throws {
        func nest(_ levels: Int) -> JSONValue {
            var value: JSONValue = 1
            for _ in 0..<levels { value = [value] }
            return value
        }
        #expect(try normalizer.normalize(nest(63), field: "deep") == nest(63))
        expectDataAPIError(111) { _ = try normalizer.normalize(nest(64), field: "deep") }
    }

    @Test("Non-finite doubles throw 111")
    func nonFinite() {
        expectDataAPIError(111) { _ = try normalizer.normalize(.double(.nan), field: "n") }
        expectDataAPIError(111) { _ = try normalizer.normalize([.double(.infinity)], field: "n") }
    }

    @Test("Stored values get their field types")
    func fieldTypes() {
        #expect(FieldType(of: nil) == nil)
        #expect(FieldType(of: true) == .boolean)
        #expect(FieldType(of: 1) == .number)
        #expect(FieldType(of: 1.5) == .number)
        #expect(FieldType(of: "s") == .string)
        #expect(FieldType(of: [1]) == .array)
        #expect(FieldType(of: ["a": 1]) == .object)
        #expect(FieldType(of: date("2000-01-01T00:00:00.000Z")) == .date)
        #expect(FieldType(of: ["__type": "Bytes", "base64": ""]) == .bytes)
        #expect(FieldType(of: pointer("A", "1")) == .pointer)
        #expect(FieldType(of: ["__type": "Relation", "className": "A"]) == .relation)
        #expect(FieldType(of: ["__type": "File", "objectId": "f"]) == .file)
        #expect(FieldType(of: ["__type": "GeoPoint", "latitude": 0, "longitude": 0]) == .geoPoint)
        #expect(FieldType(of: ["__type": "Whatever"]) == .object)
    }
}
