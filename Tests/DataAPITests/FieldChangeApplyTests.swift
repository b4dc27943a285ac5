import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("Applying field changes")
struct FieldChangeApplyTests {
    @Test("Set replaces any value; Delete removes the field")
    func setAndDelete() throws {
        #expect(try FieldChange.set("new").applied(to: 5, field: "f") == "new")
        #expect(try FieldChange.set(nil).applied(to: nil, field: "f") == .null)
        #expect(try FieldChange.delete.applied(to: "old", field: "f") == nil)
        #expect(try FieldChange.delete.applied(to: nil, field: "f") == nil)
    }

    static let integerIncrements: [(JSONValue?, JSONValue, JSONValue)] = [
        (nil, 1, 1), (.null, 3, 3), (10, 5, 15), (10, -15, -5), (0, 0, 0),
    ]

    @Test("Increment of integers stays integral", arguments: integerIncrements)
    func incrementInt(current: JSONValue?, amount: JSONValue, expected: JSONValue) throws {
        #expect(try FieldChange.increment(amount).applied(to: current, field: "n") == expected)
    }

    @Test("Increment with a double on either side gives a double")
    func incrementDouble() throws {
        #expect(try FieldChange.increment(0.5).applied(to: 1, field: "n") == .double(1.5))
        #expect(try FieldChange.increment(1).applied(to: 1.5, field: "n") == .double(2.5))
        #expect(try FieldChange.increment(-0.25).applied(to: 0.25, field: "n") == .double(0))
        #expect(try FieldChange.increment(2.5).applied(to: nil, field: "n") == .double(2.5))
    }

    @Test("Integer overflow falls back to a double instead of trapping")
    func incrementOverflow() throws {
        let result = try FieldChange.increment(1).applied(to: .int(.max), field: "n")
        #expect(result == .double(Double(Int64.max) + 1))
        let low = try FieldChange.increment(-1).applied(to: .int(.min), field: "n")
        #expect(low == .double(Double(Int64.min) - 1))
    }

    @Test("Decrement as parsed from a body subtracts")
    func decrement() throws {
        let parsed = try changes([
            "i": ["__op": "Decrement", "amount": 3], "d": ["__op": "Decrement", "amount": 0.5],
        ])
        let int = try #require(parsed.fields["i"])
        let double = try #require(parsed.fields["d"])
        #expect(try int.applied(to: 10, field: "i") == .int(7))
        #expect(try int.applied(to: nil, field: "i") == .int(-3))
        #expect(try double.applied(to: 2, field: "d") == .double(1.5))
    }

    @Test(
        "Increment of a non-number throws 111",
        arguments: [JSONValue.string("5"), true, [1], ["a": 1], date("2000-01-01T00:00:00.000Z")])
    func incrementNonNumber(current: JSONValue) {
        let error = expectDataAPIError(111) { _ = try FieldChange.increment(1).applied(to: current, field: "score") }
        #expect(error?.message.contains("score") == true)
    }

    @Test("Add appends, keeping duplicates")
    func add() throws {
        #expect(try FieldChange.add([3, 1]).applied(to: [1, 2], field: "a") == [1, 2, 3, 1])
        #expect(try FieldChange.add(["x"]).applied(to: nil, field: "a") == ["x"])
        #expect(try FieldChange.add(["x"]).applied(to: .null, field: "a") == ["x"])
        #expect(try FieldChange.add([]).applied(to: [1], field: "a") == [1])
    }

    @Test("AddUnique appends only what is missing, once")
    func addUnique() throws {
        #expect(try FieldChange.addUnique([2, 3, 3, 4]).applied(to: [1, 2], field: "a") == [1, 2, 3, 4])
        #expect(try FieldChange.addUnique([["k": 1]]).applied(to: [["k": 1]], field: "a") == [["k": 1]])
        #expect(try FieldChange.addUnique(["a"]).applied(to: nil, field: "a") == ["a"])
        // Integers and doubles are different JSON values.
        #expect(try FieldChange.addUnique([1.5]).applied(to: [1], field: "a") == [1, 1.5])
    }

    @Test("Remove drops every occurrence")
    func remove() throws {
        #expect(try FieldChange.remove([1, "x"]).applied(to: [1, 2, 1, "x", "y"], field: "a") == [2, "y"])
        #expect(try FieldChange.remove([9]).applied(to: [1], field: "a") == [1])
        #expect(try FieldChange.remove([1]).applied(to: nil, field: "a") == [])
    }

    @Test(
        "Array operations on a non-array throw 111",
        arguments: [FieldChange.add([1]), .addUnique([1]), .remove([1])])
    func arrayOnNonArray(change: FieldChange) {
        expectDataAPIError(111) { _ = try change.applied(to: "text", field: "a") }
        expectDataAPIError(111) { _ = try change.applied(to: 1, field: "a") }
        expectDataAPIError(111) { _ = try change.applied(to: ["k": [1]], field: "a") }
    }

    @Test("Relation operations give a Relation value")
    func relation() throws {
        let relation: JSONValue = ["__type": "Relation", "className": "Author"]
        #expect(try FieldChange.addRelation(className: "Author", ids: ["a"]).applied(to: nil, field: "r") == relation)
        #expect(try FieldChange.addRelation(className: "Author", ids: ["a"]).applied(to: .null, field: "r") == relation)
        #expect(
            try FieldChange.removeRelation(className: "Author", ids: ["a"]).applied(to: relation, field: "r") == relation)
    }

    @Test("Relation operations on a different relation or a non-relation throw 111")
    func relationMismatch() {
        let other: JSONValue = ["__type": "Relation", "className": "Post"]
        expectDataAPIError(111) {
            _ = try FieldChange.addRelation(className: "Author", ids: ["a"]).applied(to: other, field: "r")
        }
        expectDataAPIError(111) {
            _ = try FieldChange.removeRelation(className: "Author", ids: ["a"]).applied(to: "x", field: "r")
        }
    }

    @Test("Bit operations")
    func bitOperations() throws {
        #expect(try FieldChange.bitAnd(0b1010).applied(to: 0b0110, field: "b") == .int(0b0010))
        #expect(try FieldChange.bitOr(0b1010).applied(to: 0b0110, field: "b") == .int(0b1110))
        #expect(try FieldChange.bitXor(0b1010).applied(to: 0b0110, field: "b") == .int(0b1100))
        #expect(try FieldChange.bitOr(5).applied(to: nil, field: "b") == .int(5))
        #expect(try FieldChange.bitAnd(5).applied(to: .null, field: "b") == .int(0))
        #expect(try FieldChange.bitXor(-1).applied(to: 0, field: "b") == .int(-1))
    }

    @Test(
        "Bit operations on a non-integer throw 111",
        arguments: [JSONValue.double(3), 1.5, "3", true, [3]])
    func bitOnNonInteger(current: JSONValue) {
        expectDataAPIError(111) { _ = try FieldChange.bitAnd(1).applied(to: current, field: "b") }
        expectDataAPIError(111) { _ = try FieldChange.bitOr(1).applied(to: current, field: "b") }
        expectDataAPIError(111) { _ = try FieldChange.bitXor(1).applied(to: current, field: "b") }
    }
}

@Suite("Object writes")
struct ObjectWriteTests {
    @Test("Changes apply to the current fields and new field types are collected")
    func applyAndCollectTypes() throws {
        let current: [String: JSONValue] = ["n": 1, "keep": "k", "gone": true]
        let write = try ObjectWrite(
            current: current,
            changes: ObjectChanges(fields: [
                "n": .increment(2), "gone": .delete, "title": .set("t"), "tags": .add(["a"]), "none": .set(nil),
                "ACL": .set(ACL.publicReadWrite),
            ]),
            typeOf: { $0 == "n" ? .number : nil })
        #expect(write.fields == ["n": 3, "keep": "k", "title": "t", "tags": ["a"], "none": nil, "ACL": ACL.publicReadWrite])
        #expect(write.changedKeys == ["ACL", "gone", "n", "none", "tags", "title"])
        #expect(write.newFieldTypes == ["title": .string, "tags": .array])
        #expect(write.relationChanges.isEmpty)
    }

    @Test("A value of another type than the recorded one throws 111")
    func typeLock() {
        let error = expectDataAPIError(111) {
            _ = try ObjectWrite(current: [:], changes: sets(["n": "text"]), typeOf: { _ in .number })
        }
        #expect(error?.message.contains("expected Number, got String") == true)
        expectDataAPIError(111) {
            _ = try ObjectWrite(current: [:], changes: sets(["d": date("2000-01-01T00:00:00.000Z")]), typeOf: { _ in .string })
        }
        expectDataAPIError(111) {
            _ = try ObjectWrite(current: [:], changes: sets(["p": ["k": 1]]), typeOf: { _ in .pointer })
        }
    }

    @Test("null and deletions fit any recorded type; ACL is never type-checked")
    func nullFitsAnyType() throws {
        let write = try ObjectWrite(
            current: ["n": 1],
            changes: ObjectChanges(fields: ["n": .set(nil), "m": .delete, "ACL": .set(["*": ["read": true]])]),
            typeOf: { _ in .number })
        #expect(write.fields == ["n": nil, "ACL": ["*": ["read": true]]])
        #expect(write.newFieldTypes.isEmpty)
    }

    @Test("Relation operations are collected for the engine")
    func relationChanges() throws {
        let write = try ObjectWrite(
            current: [:],
            changes: ObjectChanges(fields: [
                "likes": .addRelation(className: "Author", ids: ["a1", "a2"]),
                "hates": .removeRelation(className: "Author", ids: ["a3"]),
            ]),
            typeOf: { _ in nil })
        #expect(
            write.relationChanges == [
                RelationChange(field: "hates", targetClass: "Author", ids: ["a3"], adding: false),
                RelationChange(field: "likes", targetClass: "Author", ids: ["a1", "a2"], adding: true),
            ])
        #expect(write.newFieldTypes == ["likes": .relation, "hates": .relation])
    }

    @Test("The document is the sorted compact JSON of the fields")
    func document() throws {
        let write = try ObjectWrite(current: [:], changes: sets(["b": 2, "a": "x"]), typeOf: { _ in nil })
        #expect(try write.document() == #"{"a":"x","b":2}"#)
    }

    @Test("A document over 128 KB throws 116; exactly 128 KB is fine")
    func documentSizeLimit() throws {
        // {"s":"…"} has 8 bytes of framing.
        let fits = try ObjectWrite(
            current: [:], changes: sets(["s": .string(String(repeating: "x", count: 128 * 1024 - 8))]),
            typeOf: { _ in nil })
        #expect(try fits.document().utf8.count == 128 * 1024)
        let tooBig = try ObjectWrite(
            current: [:], changes: sets(["s": .string(String(repeating: "x", count: 128 * 1024 - 7))]),
            typeOf: { _ in nil })
        expectDataAPIError(116) { _ = try tooBig.document() }
    }
}
