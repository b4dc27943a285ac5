import Testing

@testable import JSON

@Suite("JSON parsing")
struct JSONParsingTests {
    @Test("Literals parse to their cases")
    func literals() throws {
        #expect(try JSONValue(parsing: "null") == .null)
        #expect(try JSONValue(parsing: "true") == .bool(true))
        #expect(try JSONValue(parsing: "false") == .bool(false))
        #expect(try JSONValue(parsing: "\"hi\"") == .string("hi"))
        #expect(try JSONValue(parsing: "[]") == .array([]))
        #expect(try JSONValue(parsing: "{}") == .object([:]))
    }

    @Test(
        "Integers stay integers",
        arguments: [
            ("0", Int64(0)), ("-0", 0), ("1", 1), ("-17", -17), ("42", 42),
            ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
        ])
    func integers(text: String, expected: Int64) throws {
        #expect(try JSONValue(parsing: text) == .int(expected))
    }

    @Test(
        "Fractions and exponents are doubles",
        arguments: [
            ("1.5", 1.5), ("-0.25", -0.25), ("1e3", 1000.0), ("1E+2", 100.0), ("2.5e-3", 0.0025),
            ("1.0", 1.0), ("9223372036854775808", 9_223_372_036_854_775_808.0),
        ])
    func doubles(text: String, expected: Double) throws {
        #expect(try JSONValue(parsing: text) == .double(expected))
    }

    @Test("Whitespace around and between tokens is ignored")
    func whitespace() throws {
        let value = try JSONValue(parsing: " \n\t{ \"a\" :\r\n [ 1 , 2 ] } \n")
        #expect(value == .object(["a": .array([.int(1), .int(2)])]))
    }

    @Test("Simple escapes decode")
    func simpleEscapes() throws {
        let value = try JSONValue(parsing: #""\"\\\/\b\f\n\r\t""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\t"))
    }

    @Test("Unicode escapes decode, including surrogate pairs")
    func unicodeEscapes() throws {
        #expect(try JSONValue(parsing: #""\u0041\u00e9\u4E2D""#) == .string("Aé中"))
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue(parsing: #""x\uD834\uDD1Ey""#) == .string("x𝄞y"))
        #expect(try JSONValue(parsing: #""\u0000""#) == .string("\u{0}"))
    }

    @Test("Raw UTF-8 passes through, before and after escapes")
    func rawUTF8() throws {
        #expect(try JSONValue(parsing: "\"中文😀\"") == .string("中文😀"))
        #expect(try JSONValue(parsing: "\"中\\n文\"") == .string("中\n文"))
    }

    @Test("Nested structures parse completely")
    func nested() throws {
        let value = try JSONValue(parsing: #"{"a":[1,{"b":null,"c":[true,false]},"s"],"d":{"e":{"f":1.5}}}"#)
        let expected: JSONValue = [
            "a": [1, ["b": nil, "c": [true, false]], "s"],
            "d": ["e": ["f": 1.5]],
        ]
        #expect(value == expected)
        #expect(value["d"]?["e"]?["f"]?.doubleValue == 1.5)
        #expect(value["a"]?.arrayValue?.count == 3)
    }

    @Test("A repeated key keeps its last value")
    func duplicateKeys() throws {
        #expect(try JSONValue(parsing: #"{"a":1,"a":2}"#) == ["a": 2])
    }

    @Test("Bytes and String inputs parse the same")
    func byteInput() throws {
        let text = #"{"k":["v",1]}"#
        #expect(try JSONValue(parsing: Array(text.utf8)) == JSONValue(parsing: text))
    }

    @Test("Nesting up to maxNestingDepth (100) levels is accepted")
    func maximumDepth() throws {
        #expect(JSONValue.maxNestingDepth == 100)
        let text = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        var value = try JSONValue(parsing: text)
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            guard let first = elements.first else { break }
            value = first
        }
        #expect(depth == 100)
    }

    @Test("A larger maxDepth accepts deeper text, and is itself a bound")
    func explicitDepth() throws {
        let text = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        expectSyntaxError { _ = try JSONValue(parsing: text) }
        #expect(throws: Never.self) { try JSONValue(parsing: text, maxDepth: 256) }
        expectSyntaxError { _ = try JSONValue(parsing: text, maxDepth: 255) }
    }

    @Test(
        "Malformed input throws a syntax error",
        arguments: [
            "", "   ", "nul", "tru", "falsey", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{a:1}", "{\"a\":1",
            "[1", "01", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity", "'x'", "[1]x", "{} {}", "1 2", "\"abc",
            "\"abc\\", "\"\\x\"", "\"\\u12\"", "\"\\uZZZZ\"", "\"\\ud83d\"", "\"\\ud83dx\"", "\"\\ud83d\\u0041\"",
            "\"\\ude00\"", "\"a\u{01}b\"", "\"tab\there\"", "\"line\nbreak\"",
        ])
    func malformed(text: String) {
        expectSyntaxError { _ = try JSONValue(parsing: text) }
    }

    @Test("Trailing garbage is reported with its byte offset")
    func trailingGarbageOffset() {
        let error = expectSyntaxError { _ = try JSONValue(parsing: "{\"a\":1} x") }
        #expect(error?.message.contains("trailing") == true)
        #expect(error?.message.contains("byte 8") == true)
    }

    @Test("Unterminated strings, bad escapes and lone surrogates name the problem")
    func errorReasons() {
        let unterminated = expectSyntaxError { _ = try JSONValue(parsing: "\"abc\\n") }
        #expect(unterminated?.message.contains("unterminated string") == true)
        let badEscape = expectSyntaxError { _ = try JSONValue(parsing: "\"\\q\"") }
        #expect(badEscape?.message.contains("invalid escape") == true)
        let lone = expectSyntaxError { _ = try JSONValue(parsing: "\"\\udc00\"") }
        #expect(lone?.message.contains("unpaired surrogate") == true)
    }

    @Test("Nesting deeper than 100 throws a syntax error", arguments: ["[", "{\"k\":"])
    func tooDeep(opener: String) {
        let closer = opener == "[" ? "]" : "}"
        let text = String(repeating: opener, count: 101) + "1" + String(repeating: closer, count: 101)
        let error = expectSyntaxError { _ = try JSONValue(parsing: text) }
        #expect(error?.message.contains("nesting") == true)
    }

    @Test("Very deep hostile input fails cleanly instead of exhausting the stack")
    func hostileDepth() {
        let text = String(repeating: "[", count: 100_000)
        expectSyntaxError { _ = try JSONValue(parsing: text) }
    }

    @Test("Invalid UTF-8 inside a string throws a syntax error")
    func invalidUTF8() {
        let bytes: [UInt8] = [UInt8(ascii: "\""), 0xFF, 0xFE, UInt8(ascii: "\"")]
        expectSyntaxError { _ = try JSONValue(parsing: bytes) }
        let afterEscape: [UInt8] = Array("\"\\n".utf8) + [0xC3] + [UInt8(ascii: "\"")]
        expectSyntaxError { _ = try JSONValue(parsing: afterEscape) }
    }

    @Test("Accessors read the matching case and nil otherwise")
    func accessors() {
        let value: JSONValue = ["s": "x", "n": 3, "d": 2.0, "f": 2.5, "b": true, "a": [1], "o": ["k": 1]]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.intValue == 3)
        #expect(value["d"]?.intValue == 2)
        #expect(value["f"]?.intValue == nil)
        #expect(value["f"]?.doubleValue == 2.5)
        #expect(value["b"]?.boolValue == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["o"]?.objectValue == ["k": 1])
        #expect(value["s"]?.intValue == nil)
        #expect(value["n"]?.isNumber == true)
        #expect(value["s"]?.isNumber == false)
        #expect(value["missing"] == nil)
        #expect(JSONValue.string("x")["k"] == nil)
    }
}

/// Expects `body` to throw a `JSONSyntaxError`, and returns it.
@discardableResult
func expectSyntaxError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> JSONSyntaxError? {
    #expect(throws: JSONSyntaxError.self, sourceLocation: sourceLocation) { try body() }
}
