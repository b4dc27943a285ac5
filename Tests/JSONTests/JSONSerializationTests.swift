import Testing

@testable import JSON

@Suite("JSON serialization")
struct JSONSerializationTests {
    @Test("Scalars serialize compactly")
    func scalars() {
        #expect(JSONValue.null.jsonString == "null")
        #expect(JSONValue.bool(true).jsonString == "true")
        #expect(JSONValue.bool(false).jsonString == "false")
        #expect(JSONValue.int(-42).jsonString == "-42")
        #expect(JSONValue.int(.max).jsonString == "9223372036854775807")
        #expect(JSONValue.double(1.5).jsonString == "1.5")
        #expect(JSONValue.double(-0.25).jsonString == "-0.25")
        #expect(JSONValue.string("hi").jsonString == "\"hi\"")
        #expect(JSONValue.array([1, "a", nil]).jsonString == "[1,\"a\",null]")
        #expect(JSONValue.object([:]).jsonString == "{}")
        #expect(JSONValue.array([]).jsonString == "[]")
    }

    @Test(
        "Integral doubles are written without a fraction",
        arguments: [(2.0, "2"), (-3.0, "-3"), (0.0, "0"), (-0.0, "0"), (1e14, "100000000000000")])
    func integralDoubles(value: Double, expected: String) {
        #expect(JSONValue.double(value).jsonString == expected)
    }

    @Test("Huge integral doubles keep exponent notation, which parses back to the same double")
    func hugeDoubles() throws {
        let text = JSONValue.double(1e20).jsonString
        #expect(!text.contains("."))
        #expect(try JSONValue(parsing: text) == .double(1e20))
    }

    @Test("Non-finite doubles are written as null", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(value: Double) {
        #expect(JSONValue.double(value).jsonString == "null")
    }

    @Test("Object keys are written sorted, at every level")
    func sortedKeys() {
        let value: JSONValue = ["b": 1, "a": ["z": 1, "y": 2, "x": 3], "c": [["d": 1, "B": 2]]]
        #expect(value.jsonString == #"{"a":{"x":3,"y":2,"z":1},"b":1,"c":[{"B":2,"d":1}]}"#)
    }

    @Test("Equal objects built in different orders serialize to the same bytes")
    func byteStable() {
        var first: [String: JSONValue] = [:]
        var second: [String: JSONValue] = [:]
        for index in 0..<50 { first["k\(index)"] = .int(Int64(index)) }
        for index in (0..<50).reversed() { second["k\(index)"] = .int(Int64(index)) }
        #expect(JSONValue.object(first).jsonBytes == JSONValue.object(second).jsonBytes)
    }

    @Test("Quotes, backslashes and control characters are escaped")
    func escaping() {
        #expect(JSONValue.string("a\"b\\c").jsonString == #""a\"b\\c""#)
        #expect(JSONValue.string("\n\r\t").jsonString == #""\n\r\t""#)
        #expect(JSONValue.string("\u{0}\u{1}\u{8}\u{C}\u{1F}").jsonString == #""\u0000\u0001\u0008\u000c\u001f""#)
        #expect(JSONValue.string("/é😀").jsonString == "\"/é😀\"")
        #expect(JSONValue.object(["k\n": 1]).jsonString == #"{"k\n":1}"#)
    }

    @Test("Every control character serializes and parses back")
    func allControlCharacters() throws {
        let text = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let serialized = JSONValue.string(text).jsonString
        #expect(!serialized.utf8.dropFirst().dropLast().contains(where: { $0 < 0x20 }))
        #expect(try JSONValue(parsing: serialized) == .string(text))
    }

    @Test("write(to:) appends to what is already there")
    func writeAppends() {
        var out = Array("prefix:".utf8)
        JSONValue.array([1, 2]).write(to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "prefix:[1,2]")
    }

    static let roundTripValues: [JSONValue] = [
        .null, true, false, 0, -1, .int(.max), .int(.min), 1.5, -2.75, 1e-7, 123456.789, 1e20,
        "", "plain", "quote\" backslash\\ slash/", "ctl\u{0}\u{1}\u{1F}\n\r\t", "unicode é 中 😀 𝄞",
        [], [1, 2.5, "x", nil, true, [["deep": [1]]]],
        [:],
        ["a": 1, "b": ["c": [1, 2, ["d": nil]], "e": "f"], "g": 0.5, "": "empty key", "é": "😀"],
        ["__type": "Date", "iso": "2017-11-11T07:19:15.549Z"],
    ]

    @Test("parse(serialize(x)) == x", arguments: roundTripValues)
    func roundTrip(value: JSONValue) throws {
        #expect(try JSONValue(parsing: value.jsonBytes) == value)
        #expect(try JSONValue(parsing: value.jsonString) == value)
    }

    @Test("serialize(parse(text)) is the canonical text")
    func canonicalText() throws {
        let text = #" { "b" : [ 1 , 2.5 , "\u0041" ] , "a" : { } } "#
        #expect(try JSONValue(parsing: text).jsonString == #"{"a":{},"b":[1,2.5,"A"]}"#)
    }

    @Test("An integral double becomes an integer after a round trip")
    func integralDoubleRoundTrip() throws {
        #expect(try JSONValue(parsing: JSONValue.double(3.0).jsonString) == .int(3))
    }

    @Test("Literal conformances build the expected cases")
    func literals() {
        let value: JSONValue = ["s": "x", "i": 1, "d": 1.5, "b": false, "n": nil, "a": [1]]
        #expect(
            value
                == .object([
                    "s": .string("x"), "i": .int(1), "d": .double(1.5), "b": .bool(false), "n": .null,
                    "a": .array([.int(1)]),
                ]))
    }
}
