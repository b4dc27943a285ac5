import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("Parsing where conditions")
struct QueryPredicateParsingTests {
    @Test("A bare value is equality")
    func equality() throws {
        #expect(try predicate(#"{"a":1}"#) == .compare(key: "a", .equal, 1))
        #expect(try predicate(#"{"a":"x"}"#) == .compare(key: "a", .equal, "x"))
        #expect(try predicate(#"{"a":[1,2]}"#) == .compare(key: "a", .equal, [1, 2]))
        #expect(try predicate(#"{"a":{"k":1}}"#) == .compare(key: "a", .equal, ["k": 1]))
        #expect(try predicate(#"{"a.b":null}"#) == .compare(key: "a.b", .equal, nil))
    }

    @Test("Several keys are a sorted conjunction")
    func conjunction() throws {
        #expect(
            try predicate(#"{"b":2,"a":1}"#)
                == .and([.compare(key: "a", .equal, 1), .compare(key: "b", .equal, 2)]))
        #expect(try predicate("{}") == .and([]))
    }

    @Test(
        "Comparison operators",
        arguments: [
            ("$eq", ComparisonOperator.equal), ("$ne", .notEqual), ("$lt", .less), ("$lte", .lessOrEqual),
            ("$gt", .greater), ("$gte", .greaterOrEqual),
        ])
    func comparisons(op: String, expected: ComparisonOperator) throws {
        #expect(try predicate(#"{"n":{"\#(op)":5}}"#) == .compare(key: "n", expected, 5))
    }

    @Test("Several operators on one key are a sorted conjunction")
    func range() throws {
        #expect(
            try predicate(#"{"n":{"$lt":10,"$gte":1}}"#)
                == .and([.compare(key: "n", .greaterOrEqual, 1), .compare(key: "n", .less, 10)]))
    }

    @Test("$in, $nin and $exists")
    func membershipAndExistence() throws {
        #expect(try predicate(#"{"n":{"$in":[1,"a"]}}"#) == .oneOf(key: "n", [1, "a"], negated: false))
        #expect(try predicate(#"{"n":{"$nin":[]}}"#) == .oneOf(key: "n", [], negated: true))
        #expect(try predicate(#"{"n":{"$exists":true}}"#) == .exists(key: "n", true))
        #expect(try predicate(#"{"n":{"$exists":false}}"#) == .exists(key: "n", false))
    }

    @Test("$or and $and nest")
    func logical() throws {
        let parsed = try predicate(#"{"$or":[{"a":1},{"$and":[{"b":{"$gt":2}},{"c":true}]}]}"#)
        #expect(
            parsed
                == .or([
                    .compare(key: "a", .equal, 1),
                    .and([.compare(key: "b", .greater, 2), .compare(key: "c", .equal, true)]),
                ]))
    }

    @Test("Date operands are normalized; Object operands become Pointers")
    func typedOperands() throws {
        #expect(
            try predicate(#"{"d":{"$lt":{"__type":"Date","iso":"2020-01-01T08:00:00+08:00"}}}"#)
                == .compare(key: "d", .less, date("2020-01-01T00:00:00.000Z")))
        #expect(
            try predicate(#"{"p":{"__type":"Object","className":"A","objectId":"1","name":"x"}}"#)
                == .compare(key: "p", .equal, pointer("A", "1")))
        #expect(
            try predicate(#"{"p":{"$in":[{"__type":"Pointer","className":"A","objectId":"1"}]}}"#)
                == .oneOf(key: "p", [pointer("A", "1")], negated: false))
    }

    @Test(
        "Invalid conditions throw 102",
        arguments: [
            "[]", "1", #"{"n":{"$foo":"x"}}"#, #"{"n":{"$in":1}}"#, #"{"n":{"$nin":"a"}}"#,
            #"{"n":{"$exists":1}}"#, #"{"$or":{"a":1}}"#, #"{"$and":1}"#, #"{"$or":[1]}"#, #"{"a b":1}"#,
            #"{"a..b":1}"#, #"{"a'":1}"#, #"{"$where":"1"}"#, #"{"d":{"__type":"Date","iso":"nope"}}"#,
            #"{"p":{"__type":"Pointer","className":"A"}}"#, #"{"n":{"$in":[{"$gt":1}]}}"#,
        ])
    func invalid(text: String) throws {
        let value = try json(text)
        expectDataAPIError(102) { _ = try QueryPredicate(where: value) }
    }
}

@Suite("Query parameters")
struct ObjectQueryParameterTests {
    @Test("Defaults")
    func defaults() throws {
        let query = try ObjectQuery(className: "Post", parameters: [:])
        #expect(query == ObjectQuery(className: "Post"))
        #expect(query.limit == 100)
        #expect(query.skip == 0)
        #expect(query.predicate == nil)
        #expect(query.order.isEmpty)
        #expect(query.keys == nil)
        #expect(query.include.isEmpty)
        #expect(!query.returnACL)
    }

    @Test("Every parameter is read")
    func allParameters() throws {
        let query = try ObjectQuery(
            className: "Post",
            parameters: [
                "where": #"{"n":{"$gt":1}}"#, "order": "-score, name,createdAt", "limit": "1000", "skip": "20",
                "keys": "title,-content", "include": "author, post.author", "returnACL": "true",
            ])
        #expect(query.predicate == .compare(key: "n", .greater, 1))
        #expect(
            query.order
                == [
                    SortKey(key: "score", descending: true), SortKey(key: "name", descending: false),
                    SortKey(key: "createdAt", descending: false),
                ])
        #expect(query.limit == 1000)
        #expect(query.skip == 20)
        #expect(query.keys?.selected == ["title"])
        #expect(query.keys?.excluded == ["content"])
        #expect(query.include == ["author", "post.author"])
        #expect(query.returnACL)
    }

    @Test("An empty where is no condition; returnACL is only true for \"true\"")
    func emptyValues() throws {
        let query = try ObjectQuery(className: "P", parameters: ["where": "", "keys": "", "include": "", "returnACL": "1"])
        #expect(query.predicate == nil)
        #expect(query.keys == nil)
        #expect(query.include.isEmpty)
        #expect(!query.returnACL)
    }

    @Test("A limit past 1000 is served as 1000, as LeanCloud does")
    func limitPastTheMost() throws {
        #expect(try ObjectQuery(className: "P", parameters: ["limit": "1001"]).limit == 1000)
        #expect(try ObjectQuery(className: "P", parameters: ["limit": "100000"]).limit == 1000)
    }

    @Test(
        "Invalid parameters throw 102",
        arguments: [
            ["where": "{"], ["where": "[]"], ["where": #"{"n":{"$bad":1}}"#], ["order": "a b"], ["order": "-"],
            ["limit": "-1"], ["limit": "ten"], ["skip": "-5"], ["skip": "x"],
        ])
    func invalid(parameters: [String: String]) {
        expectDataAPIError(102) { _ = try ObjectQuery(className: "P", parameters: parameters) }
    }
}

@Suite("Key selection")
struct KeySelectionTests {
    let object: [String: JSONValue] = [
        "objectId": "id1", "createdAt": "c", "updatedAt": "u", "title": "T", "content": "C", "author": pointer("A", "1"),
        "ACL": ACL.publicReadWrite,
    ]

    @Test("Parsing splits selections from exclusions")
    func parsing() {
        let selection = KeySelection(" a , -b,c,, -d ")
        #expect(selection.selected == ["a", "c"])
        #expect(selection.excluded == ["b", "d"])
    }

    @Test("Selecting keeps the chosen fields and the built-ins")
    func select() {
        #expect(
            KeySelection("title").apply(to: object)
                == ["objectId": "id1", "createdAt": "c", "updatedAt": "u", "title": "T"])
    }

    @Test("A dotted selection keeps its top-level field")
    func dottedSelect() {
        #expect(
            KeySelection("author.name").apply(to: object)
                == ["objectId": "id1", "createdAt": "c", "updatedAt": "u", "author": pointer("A", "1")])
    }

    @Test("Excluding drops only the named fields, built-ins included")
    func exclude() {
        var expected = object
        expected["content"] = nil
        expected["createdAt"] = nil
        #expect(KeySelection("-content,-createdAt").apply(to: object) == expected)
    }

    @Test("Selection and exclusion combine")
    func combined() {
        #expect(
            KeySelection("title,content,-content,-updatedAt").apply(to: object)
                == ["objectId": "id1", "createdAt": "c", "title": "T"])
    }

    @Test("Selecting an unknown field keeps only the built-ins")
    func unknownField() {
        #expect(
            KeySelection("nothing").apply(to: object) == ["objectId": "id1", "createdAt": "c", "updatedAt": "u"])
    }
}
