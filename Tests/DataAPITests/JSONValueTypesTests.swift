import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("LeanCloud values in JSON")
struct JSONValueTypesTests {
    @Test("A typed value's __type is its tag; plain values have none")
    func typeTags() {
        #expect(date("2020-01-01T00:00:00Z").typeTag == "Date")
        let plain: JSONValue = ["k": 1]
        #expect(plain.typeTag == nil)
        #expect(plain.isArrayOrPlainObject)
        #expect(!date("2020-01-01T00:00:00Z").isArrayOrPlainObject)
    }

    @Test("Malformed JSON reaches clients as 107 with the parser's words")
    func malformedJSONIs107() {
        let error = expectDataAPIError(107) {
            do throws(JSONSyntaxError) {
                _ = try JSONValue(parsing: "{\"a\":1} x")
            } catch {
                throw DataAPIError(error)
            }
        }
        #expect(error?.message == "Malformed JSON: unexpected trailing characters at byte 8.")
    }
}
