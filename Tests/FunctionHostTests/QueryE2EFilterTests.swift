import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Pointers, dates and points the tables use (`@id:` placeholders are filled in per server).
private enum V {
    static func ptr(_ className: String, _ label: String) -> String {
        #"{"__type":"Pointer","className":"\#(className)","objectId":"@id:\#(label)"}"#
    }
    static func post(_ label: String) -> String { ptr("QPost", label) }
    static func author(_ label: String) -> String { ptr("QAuthor", label) }
    static func item(_ label: String) -> String { ptr("QItem", label) }
    static func date(_ iso: String) -> String { #"{"__type":"Date","iso":"\#(iso)"}"# }
    static func point(_ latitude: Double, _ longitude: Double) -> String {
        #"{"__type":"GeoPoint","latitude":\#(latitude),"longitude":\#(longitude)}"#
    }
}

private let all = QE2EFixture.allItems

/// `where` with comparison, equality, membership, array, regex and existence operators, alone
/// and combined, on every kind of field, end to end over HTTP.
@Suite struct QueryE2EFilterTests {
    static let comparisons: [QE2ECase] = [
        .set("no condition", #"{}"#, all),
        .set("no where parameter", nil, all),
        .set("empty where parameter", "", all),
        // Numbers, ints and doubles alike.
        .set("number implicit eq int", #"{"score":10}"#, ["alpha", "zulu"]),
        .set("number implicit eq double", #"{"score":10.0}"#, ["alpha", "zulu"]),
        .set("number $eq", #"{"score":{"$eq":2.5}}"#, ["Bravo"]),
        .set("number $ne (includes missing)", #"{"score":{"$ne":10}}"#, ["Bravo", "charlie", "Délice", "東京", "empty", "omega"]),
        .set("number $lt", #"{"score":{"$lt":0}}"#, ["charlie"]),
        .set("number $lte", #"{"score":{"$lte":0}}"#, ["charlie", "東京"]),
        .set("number $gt", #"{"score":{"$gt":10}}"#, ["Délice"]),
        .set("number $gte", #"{"score":{"$gte":10}}"#, ["alpha", "Délice", "zulu"]),
        .set("number $gt double bound", #"{"score":{"$gt":9.999}}"#, ["alpha", "Délice", "zulu"]),
        .set("number range open", #"{"score":{"$gt":-7,"$lt":10}}"#, ["東京", "Bravo"]),
        .set("number range closed", #"{"score":{"$gte":2.5,"$lte":2.5}}"#, ["Bravo"]),
        .set("number $lt below all", #"{"score":{"$lt":-100}}"#, []),
        .set("number $eq no match", #"{"score":11}"#, []),
        // Strings, in code-point order.
        .set("string eq", #"{"name":"alpha"}"#, ["alpha"]),
        .set("string eq is case-sensitive", #"{"name":"Alpha"}"#, []),
        .set("string eq CJK", #"{"name":"東京"}"#, ["東京"]),
        .set("string eq accented", #"{"name":"Délice"}"#, ["Délice"]),
        .set("string $eq", #"{"name":{"$eq":"zulu"}}"#, ["zulu"]),
        .set("string $lt: upper case sorts first", #"{"name":{"$lt":"a"}}"#, ["Bravo", "Délice"]),
        .set("string $gte", #"{"name":{"$gte":"a"}}"#, ["alpha", "charlie", "東京", "zulu", "omega"]),
        .set("string $gt: CJK after ASCII", #"{"name":{"$gt":"zulu"}}"#, ["東京"]),
        .set("string $lte", #"{"name":{"$lte":"charlie"}}"#, ["alpha", "Bravo", "charlie", "Délice"]),
        .set("string range", #"{"name":{"$gt":"D","$lt":"E"}}"#, ["Délice"]),
        .set("string $gt: é after z", #"{"name":{"$gt":"Dz"}}"#, ["Délice", "alpha", "charlie", "東京", "zulu", "omega"]),
        .set("string $ne (includes missing)", #"{"name":{"$ne":"alpha"}}"#, ["Bravo", "charlie", "Délice", "東京", "zulu", "empty", "omega"]),
        // Booleans.
        .set("bool true", #"{"flag":true}"#, ["alpha", "charlie", "東京", "omega"]),
        .set("bool false", #"{"flag":false}"#, ["Bravo", "Délice"]),
        .set("bool $ne true (includes missing)", #"{"flag":{"$ne":true}}"#, ["Bravo", "Délice", "zulu", "empty"]),
        .set("bool $ne false", #"{"flag":{"$ne":false}}"#, ["alpha", "charlie", "東京", "zulu", "empty", "omega"]),
        // Dates.
        .set("date eq", #"{"when":\#(V.date("2024-01-15T10:00:00.000Z"))}"#, ["alpha"]),
        .set("date eq with offset", #"{"when":\#(V.date("2024-01-15T18:00:00+08:00"))}"#, ["alpha"]),
        .set("date eq without millis", #"{"when":\#(V.date("2024-01-15T10:00:00Z"))}"#, ["alpha"]),
        .set("date $gt (by the millisecond)", #"{"when":{"$gt":\#(V.date("2024-01-15T10:00:00.000Z"))}}"#, ["charlie", "Délice"]),
        .set("date $gte", #"{"when":{"$gte":\#(V.date("2024-01-15T10:00:00.000Z"))}}"#, ["alpha", "charlie", "Délice"]),
        .set("date $lt", #"{"when":{"$lt":\#(V.date("2024-01-01T00:00:00Z"))}}"#, ["Bravo", "zulu"]),
        .set("date $lte", #"{"when":{"$lte":\#(V.date("2022-12-31T23:59:59.999Z"))}}"#, ["zulu"]),
        .set("date $ne (includes missing)", #"{"when":{"$ne":\#(V.date("2024-01-15T10:00:00.000Z"))}}"#, ["Bravo", "charlie", "Délice", "東京", "zulu", "empty", "omega"]),
        .set(
            "date range", #"{"when":{"$gt":\#(V.date("2023-07-01T00:00:00Z")),"$lt":\#(V.date("2024-06-01T00:00:00Z"))}}"#,
            ["alpha", "Délice"]),
        .set("date $in", #"{"when":{"$in":[\#(V.date("2024-01-15T10:00:00.000Z")),\#(V.date("2022-12-31T23:59:59.999Z"))]}}"#, ["alpha", "zulu"]),
        // createdAt, updatedAt and objectId.
        .computed(
            "createdAt $gt string", #"{"createdAt":{"$gt":"@created:charlie"}}"#,
            .timestampFilter(key: "createdAt", op: "$gt", referenceKey: "createdAt", reference: "charlie")),
        .computed(
            "createdAt $lte Date", #"{"createdAt":{"$lte":{"__type":"Date","iso":"@created:charlie"}}}"#,
            .timestampFilter(key: "createdAt", op: "$lte", referenceKey: "createdAt", reference: "charlie")),
        .computed(
            "createdAt eq Date", #"{"createdAt":{"__type":"Date","iso":"@created:Bravo"}}"#,
            .timestampFilter(key: "createdAt", op: "$eq", referenceKey: "createdAt", reference: "Bravo")),
        .computed(
            "updatedAt $gt last creation", #"{"updatedAt":{"$gt":"@created:omega"}}"#,
            .timestampFilter(key: "updatedAt", op: "$gt", referenceKey: "createdAt", reference: "omega")),
        .computed(
            "updatedAt $gte own update", #"{"updatedAt":{"$gte":{"__type":"Date","iso":"@updated:alpha"}}}"#,
            .timestampFilter(key: "updatedAt", op: "$gte", referenceKey: "updatedAt", reference: "alpha")),
        .set("createdAt before 2000", #"{"createdAt":{"$lt":\#(V.date("2000-01-01T00:00:00Z"))}}"#, []),
        .set("createdAt after 2000", #"{"createdAt":{"$gte":"2000-01-01T00:00:00Z"}}"#, all),
        .set("createdAt $exists false", #"{"createdAt":{"$exists":false}}"#, []),
        .computed(
            "createdAt $in", #"{"createdAt":{"$in":["@created:alpha",{"__type":"Date","iso":"@created:omega"}]}}"#,
            .timestampFilter(key: "createdAt", op: "$in", referenceKey: "createdAt", reference: "alpha|omega")),
        .set("objectId eq", #"{"objectId":"@id:charlie"}"#, ["charlie"]),
        .set("objectId $in", #"{"objectId":{"$in":["@id:alpha","@id:zulu","nope"]}}"#, ["alpha", "zulu"]),
        .set("objectId $ne", #"{"objectId":{"$ne":"@id:alpha"}}"#, ["Bravo", "charlie", "Délice", "東京", "zulu", "empty", "omega"]),
        // Pointers.
        .set("pointer eq", #"{"post":\#(V.post("p1"))}"#, ["alpha", "charlie"]),
        .set("pointer eq as Object", #"{"post":{"__type":"Object","className":"QPost","objectId":"@id:p2"}}"#, ["Bravo", "Délice"]),
        .set("pointer $eq", #"{"post":{"$eq":\#(V.post("p3"))}}"#, ["zulu"]),
        .set("pointer eq wrong class", #"{"post":\#(V.ptr("QAuthor", "p1"))}"#, []),
        .set("pointer $ne (includes missing)", #"{"post":{"$ne":\#(V.post("p1"))}}"#, ["Bravo", "Délice", "東京", "zulu", "empty", "omega"]),
        .set("pointer $in", #"{"post":{"$in":[\#(V.post("p2")),\#(V.post("p3"))]}}"#, ["Bravo", "Délice", "zulu"]),
        .set("pointer $nin", #"{"post":{"$nin":[\#(V.post("p1"))]}}"#, ["Bravo", "Délice", "東京", "zulu", "empty", "omega"]),
        // GeoPoint equality.
        .set("geopoint eq", #"{"loc":\#(V.point(51.5074, -0.1278))}"#, ["charlie"]),
        .set("geopoint eq no match", #"{"loc":\#(V.point(51.5074, -0.1279))}"#, []),
        // Nested objects.
        .set("nested object eq", #"{"o":{"x":1}}"#, ["Bravo"]),
        .set("nested key eq", #"{"o.x":2}"#, ["charlie"]),
        .set("nested key $gt", #"{"o.x":{"$gt":1}}"#, ["alpha", "charlie", "Délice"]),
        .set("nested key $lte double", #"{"o.x":{"$lte":2.5}}"#, ["Bravo", "charlie", "Délice", "zulu"]),
        .set("nested key string", #"{"o.y":"c"}"#, ["alpha"]),
        .set("nested key type mismatch", #"{"o.y":3}"#, []),
        .set("nested object eq needs every member", #"{"o":{"x":2}}"#, []),
        .set("nested object eq with escapes", #"{"o":{"z":"a\"b\n/é","x":2}}"#, ["charlie"]),
        .set("nested key eq with escapes", #"{"o.z":"a\"b\n/é"}"#, ["charlie"]),
    ]

    static let arraysAndMissing: [QE2ECase] = [
        // Equality on an array field means "contains".
        .set("array contains string", #"{"tags":"red"}"#, ["alpha", "charlie", "東京"]),
        .set("array contains is case-sensitive", #"{"tags":"green"}"#, ["alpha", "charlie"]),
        .set("array contains upper case", #"{"tags":"GREEN"}"#, ["omega"]),
        .set("array contains number", #"{"nums":3}"#, ["alpha", "東京"]),
        .set("array contains double", #"{"nums":4.5}"#, ["charlie"]),
        .set("array contains negative", #"{"nums":-1}"#, ["omega"]),
        .set("array $eq contains", #"{"tags":{"$eq":"blue"}}"#, ["Bravo", "charlie"]),
        .set("array element $gt", #"{"nums":{"$gt":5}}"#, ["Bravo"]),
        .set("array element $lt", #"{"nums":{"$lt":0}}"#, ["omega"]),
        .set("array element $gte", #"{"nums":{"$gte":3}}"#, ["alpha", "Bravo", "charlie", "東京"]),
        .set("array exact equality", #"{"tags":["red","green"]}"#, ["alpha"]),
        .set("array exact equality is ordered", #"{"tags":["green","red"]}"#, []),
        .set("array equals empty", #"{"tags":[]}"#, ["Délice"]),
        .set("array $ne element (includes missing)", #"{"tags":{"$ne":"red"}}"#, ["Bravo", "Délice", "zulu", "empty", "omega"]),
        .set("array element type mismatch", #"{"nums":"3"}"#, []),
        .set("array $in whole arrays", #"{"tags":{"$in":[["red","green"],["blue"]]}}"#, ["alpha", "Bravo"]),
        .set("array $ne whole array", #"{"tags":{"$ne":["red","green"]}}"#, all.filter { $0 != "alpha" }),
        // An array of pointers.
        .set("pointer array contains", #"{"refs":\#(V.author("Ann"))}"#, ["alpha"]),
        .set("pointer array contains nothing", #"{"refs":\#(V.author("Dee"))}"#, []),
        .set("pointer array $in", #"{"refs":{"$in":[\#(V.author("Ben")),\#(V.author("Dee"))]}}"#, ["Bravo"]),
        .set("pointer array $all", #"{"refs":{"$all":[\#(V.author("Cal")),\#(V.author("Ann"))]}}"#, ["alpha"]),
        .set("pointer array $ne", #"{"refs":{"$ne":\#(V.author("Ann"))}}"#, all.filter { $0 != "alpha" }),
        .set("pointer array $size", #"{"refs":{"$size":2}}"#, ["alpha"]),
        // A constant of another type than the field's matches nothing.
        .set("mismatch string on number", #"{"score":"10"}"#, []),
        .set("mismatch number on string", #"{"name":10}"#, []),
        .set("mismatch string on bool", #"{"flag":"true"}"#, []),
        .set("mismatch number on bool", #"{"flag":1}"#, []),
        .set("mismatch string on date", #"{"when":"2024-01-15T10:00:00.000Z"}"#, []),
        .set("mismatch date on number", #"{"score":\#(V.date("2024-01-01T00:00:00Z"))}"#, []),
        .set("mismatch string $gt on number", #"{"score":{"$gt":"a"}}"#, []),
        .set("mismatch number $lt on string", #"{"name":{"$lt":100}}"#, []),
        .set("mismatch pointer on string", #"{"name":\#(V.post("p1"))}"#, []),
        .set("mismatch $ne matches all", #"{"score":{"$ne":"10"}}"#, all),
        .set("unknown field eq", #"{"nosuch":1}"#, []),
        .set("unknown field $ne", #"{"nosuch":{"$ne":1}}"#, all),
        // Missing fields.
        .set("null matches missing", #"{"score":null}"#, ["empty", "omega"]),
        .set("$ne null", #"{"score":{"$ne":null}}"#, ["alpha", "Bravo", "charlie", "Délice", "東京", "zulu"]),
        .set("$exists true number", #"{"score":{"$exists":true}}"#, ["alpha", "Bravo", "charlie", "Délice", "東京", "zulu"]),
        .set("$exists false number", #"{"score":{"$exists":false}}"#, ["empty", "omega"]),
        .set("$exists false string", #"{"name":{"$exists":false}}"#, ["empty"]),
        .set("$exists false pointer", #"{"post":{"$exists":false}}"#, ["東京", "empty", "omega"]),
        .set("$exists true geopoint", #"{"loc":{"$exists":true}}"#, ["alpha", "Bravo", "charlie", "Délice", "東京", "zulu"]),
        .set("$exists false date", #"{"when":{"$exists":false}}"#, ["東京", "empty", "omega"]),
        .set("$exists true empty array", #"{"tags":{"$exists":true},"nums":{"$size":0}}"#, ["Délice"]),
        .set("$exists false bool", #"{"flag":{"$exists":false}}"#, ["zulu", "empty"]),
        .set("$exists nested key", #"{"o.y":{"$exists":true}}"#, ["alpha"]),
        .set("$exists false nested key", #"{"o.x":{"$exists":false}}"#, ["東京", "empty", "omega"]),
        .set("$exists relation", #"{"likes":{"$exists":true}}"#, ["alpha", "Bravo", "charlie"]),
        .set("$exists objectId", #"{"objectId":{"$exists":true}}"#, all),
        .set("$exists unknown field", #"{"nosuch":{"$exists":true}}"#, []),
        // $in, $nin.
        .set("$in numbers", #"{"score":{"$in":[10,2.5,999]}}"#, ["alpha", "Bravo", "zulu"]),
        .set("$nin numbers (includes missing)", #"{"score":{"$nin":[10,2.5]}}"#, ["charlie", "Délice", "東京", "empty", "omega"]),
        .set("$in strings", #"{"name":{"$in":["alpha","東京","nope"]}}"#, ["alpha", "東京"]),
        .set("$in empty", #"{"name":{"$in":[]}}"#, []),
        .set("$nin empty", #"{"name":{"$nin":[]}}"#, all),
        .set("$in on array field", #"{"tags":{"$in":["blue","GREEN"]}}"#, ["Bravo", "charlie", "omega"]),
        .set("$nin on array field", #"{"tags":{"$nin":["red","blue"]}}"#, ["Délice", "zulu", "empty", "omega"]),
        .set("$in booleans", #"{"flag":{"$in":[false]}}"#, ["Bravo", "Délice"]),
        .set("$in type mismatch", #"{"score":{"$in":["10"]}}"#, []),
        .set("$in null matches missing", #"{"score":{"$in":[null,100]}}"#, ["Délice", "empty", "omega"]),
        // $all.
        .set("$all two", #"{"tags":{"$all":["red","green"]}}"#, ["alpha", "charlie"]),
        .set("$all one", #"{"tags":{"$all":["red"]}}"#, ["alpha", "charlie", "東京"]),
        .set("$all order-free", #"{"tags":{"$all":["green","blue","red"]}}"#, ["charlie"]),
        .set("$all missing element", #"{"tags":{"$all":["red","purple"]}}"#, []),
        .set("$all numbers", #"{"nums":{"$all":[2,4.5]}}"#, ["charlie"]),
        .set("$all on non-array is equality", #"{"name":{"$all":["alpha"]}}"#, ["alpha"]),
        .set("$all on non-array, two values", #"{"name":{"$all":["alpha","omega"]}}"#, []),
        .set("$all with other field", #"{"tags":{"$all":["green"]},"flag":true}"#, ["alpha", "charlie"]),
        .set("$all empty matches nothing", #"{"tags":{"$all":[]}}"#, []),
        .set("$regex on array elements", #"{"tags":{"$regex":"^gr","$options":"i"}}"#, ["alpha", "charlie", "omega"]),
        // $size.
        .set("$size 0", #"{"tags":{"$size":0}}"#, ["Délice"]),
        .set("$size 3", #"{"tags":{"$size":3}}"#, ["charlie"]),
        .set("$size 1 numbers", #"{"nums":{"$size":1}}"#, ["Bravo", "東京", "omega"]),
        .set("$size none", #"{"tags":{"$size":7}}"#, []),
        .set("$size on string", #"{"name":{"$size":5}}"#, []),
        .set("$size two fields", #"{"tags":{"$size":2},"nums":{"$size":3}}"#, ["alpha"]),
    ]

    static let regexes: [QE2ECase] = [
        .set("regex prefix", #"{"name":{"$regex":"^[a-z]"}}"#, ["alpha", "charlie", "zulu", "omega"]),
        .set("regex upper-case prefix, empty options", #"{"name":{"$regex":"^[A-Z]","$options":""}}"#, ["Bravo", "Délice"]),
        .set("regex case-sensitive", #"{"name":{"$regex":"^bravo"}}"#, []),
        // The JS SDK's startsWith/endsWith/contains quote their text as \Q...\E (PostgreSQL has no \Q).
        .set("regex \\Q quoted prefix (startsWith)", #"{"text":{"$regex":"^\\Qcafé au\\E"}}"#, ["Délice"]),
        .set("regex \\Q quotes metacharacters", #"{"text":{"$regex":"\\Qline.two\\E","$options":"i"}}"#, []),
        .set("regex \\Q quoted suffix (endsWith)", #"{"text":{"$regex":"\\QWorld\\E$"}}"#, ["Bravo"]),
        .set("regex i", #"{"name":{"$regex":"^bravo","$options":"i"}}"#, ["Bravo"]),
        .set("regex i unicode", #"{"name":{"$regex":"ÉLICE","$options":"i"}}"#, ["Délice"]),
        .set("regex CJK", #"{"name":{"$regex":"^東"}}"#, ["東京"]),
        .set("regex accented class", #"{"text":{"$regex":"caf[ée] au"}}"#, ["Délice"]),
        .set("regex anchors whole text without m", #"{"text":{"$regex":"^second"}}"#, []),
        .set("regex m", #"{"text":{"$regex":"^second","$options":"m"}}"#, ["alpha"]),
        .set("regex i without m", #"{"text":{"$regex":"^line two$","$options":"i"}}"#, []),
        .set("regex im", #"{"text":{"$regex":"^line two$","$options":"im"}}"#, ["charlie"]),
        .set("regex mi", #"{"text":{"$regex":"^LINE","$options":"mi"}}"#, ["charlie"]),
        .set("regex dot stops at newline without s", #"{"text":{"$regex":"first.*second"}}"#, []),
        .set("regex s", #"{"text":{"$regex":"first.*second","$options":"s"}}"#, ["alpha"]),
        .set("regex s single char", #"{"text":{"$regex":"one.LINE","$options":"s"}}"#, ["charlie"]),
        .set("regex spaces literal without x", #"{"text":{"$regex":"Hel lo \\s World"}}"#, []),
        .set("regex x", #"{"text":{"$regex":"Hel lo \\s World","$options":"x"}}"#, ["Bravo"]),
        .set("regex x comment", #"{"text":{"$regex":"tokyo # a city\n \\s tower","$options":"x"}}"#, ["東京"]),
        .set("regex imsx", #"{"text":{"$regex":"ONE . line","$options":"imsx"}}"#, ["charlie"]),
        .set("regex on nested key", #"{"o.y":{"$regex":"^C","$options":"i"}}"#, ["alpha"]),
        .set("regex on number field", #"{"score":{"$regex":"1"}}"#, []),
        .set("regex on missing field", #"{"nosuch":{"$regex":"."}}"#, []),
        .set("regex with $ne", #"{"name":{"$regex":"a","$ne":"alpha"}}"#, ["Bravo", "charlie", "omega"]),
        .set("regex and $in", #"{"name":{"$regex":"^[a-z]","$in":["alpha","Bravo","zulu"]}}"#, ["alpha", "zulu"]),
    ]

    static let subqueries: [QE2ECase] = [
        .set("$inQuery", #"{"post":{"$inQuery":{"className":"QPost","where":{"title":"Hello"}}}}"#, ["alpha", "charlie"]),
        .set(
            "$notInQuery (includes missing)", #"{"post":{"$notInQuery":{"className":"QPost","where":{"title":"Hello"}}}}"#,
            ["Bravo", "Délice", "東京", "zulu", "empty", "omega"]),
        .set("$inQuery without where", #"{"post":{"$inQuery":{"className":"QPost"}}}"#, ["alpha", "Bravo", "charlie", "Délice", "zulu"]),
        .set("$inQuery matching nothing", #"{"post":{"$inQuery":{"className":"QPost","where":{"title":"Nope"}}}}"#, []),
        .set("$inQuery on missing field", #"{"post":{"$inQuery":{"className":"QPost","where":{"author":{"$exists":false}}}}}"#, ["zulu"]),
        .set("$inQuery other class", #"{"post":{"$inQuery":{"className":"QAuthor"}}}"#, []),
        .set("$inQuery unknown class", #"{"post":{"$inQuery":{"className":"NoSuchClass"}}}"#, []),
        .set("$notInQuery unknown class", #"{"post":{"$notInQuery":{"className":"NoSuchClass"}}}"#, all),
        .set(
            "$inQuery nested twice",
            #"{"post":{"$inQuery":{"className":"QPost","where":{"author":{"$inQuery":{"className":"QAuthor","where":{"country":"US"}}}}}}}"#,
            ["Bravo", "Délice"]),
        .set(
            "$notInQuery of nested $inQuery",
            #"{"post":{"$notInQuery":{"className":"QPost","where":{"author":{"$inQuery":{"className":"QAuthor","where":{"country":{"$in":["FR","US"]}}}}}}}}"#,
            ["東京", "zulu", "empty", "omega"]),
        .set(
            "$inQuery with $or inside",
            #"{"post":{"$inQuery":{"className":"QPost","where":{"$or":[{"title":"World"},{"author":{"$exists":false}}]}}}}"#,
            ["Bravo", "Délice", "zulu"]),
        .set("$inQuery and field", #"{"post":{"$inQuery":{"className":"QPost","where":{"title":"Hello"}}},"score":{"$gt":0}}"#, ["alpha"]),
        .set("$inQuery on a pointer array", #"{"refs":{"$inQuery":{"className":"QAuthor","where":{"country":"US"}}}}"#, ["Bravo"]),
        .set(
            "$inQuery on a pointer array, any element", #"{"refs":{"$inQuery":{"className":"QAuthor","where":{"lucky":{"$gt":5}}}}}"#,
            ["alpha"]),
        .set(
            "$notInQuery on a pointer array", #"{"refs":{"$notInQuery":{"className":"QAuthor","where":{"country":"US"}}}}"#,
            all.filter { $0 != "Bravo" }),
        .set("$select", #"{"name":{"$select":{"query":{"className":"QAuthor"},"key":"favorite"}}}"#, ["alpha", "zulu"]),
        .set(
            "$select with where", #"{"name":{"$select":{"query":{"className":"QAuthor","where":{"country":"FR"}},"key":"favorite"}}}"#,
            ["alpha"]),
        .set(
            "$select numbers (int matches double)", #"{"score":{"$select":{"query":{"className":"QAuthor"},"key":"lucky"}}}"#,
            ["alpha", "東京", "zulu"]),
        .set(
            "$select objectId same class", #"{"objectId":{"$select":{"query":{"className":"QItem","where":{"flag":true}},"key":"objectId"}}}"#,
            ["alpha", "charlie", "東京", "omega"]),
        .set(
            "$dontSelect (includes missing)", #"{"name":{"$dontSelect":{"query":{"className":"QAuthor"},"key":"favorite"}}}"#,
            ["Bravo", "charlie", "Délice", "東京", "empty", "omega"]),
        .set(
            "$dontSelect with where",
            #"{"name":{"$dontSelect":{"query":{"className":"QAuthor","where":{"country":"FR"}},"key":"favorite"}}}"#,
            ["Bravo", "charlie", "Délice", "東京", "zulu", "empty", "omega"]),
        .set(
            "$select of nothing", #"{"name":{"$select":{"query":{"className":"QAuthor","where":{"country":"XX"}},"key":"favorite"}}}"#,
            []),
        // Relations.
        .set("reverse relation", #"{"likes":\#(V.author("Ann"))}"#, ["alpha", "Bravo"]),
        .set("reverse relation one owner", #"{"likes":\#(V.author("Cal"))}"#, ["charlie"]),
        .set("reverse relation no owner", #"{"likes":\#(V.author("Dee"))}"#, []),
        .set("reverse relation $ne", #"{"likes":{"$ne":\#(V.author("Ann"))}}"#, ["charlie", "Délice", "東京", "zulu", "empty", "omega"]),
        .set("reverse relation $in", #"{"likes":{"$in":[\#(V.author("Ben")),\#(V.author("Cal"))]}}"#, ["alpha", "charlie"]),
        .set("reverse relation $nin", #"{"likes":{"$nin":[\#(V.author("Ann")),\#(V.author("Cal"))]}}"#, ["Délice", "東京", "zulu", "empty", "omega"]),
        .set("reverse relation pointer of another class", #"{"likes":\#(V.ptr("QPost", "Ann"))}"#, []),
        .set("reverse relation and field", #"{"likes":\#(V.author("Ann")),"flag":true}"#, ["alpha"]),
        .set(
            "$relatedTo", #"{"$relatedTo":{"object":\#(V.item("alpha")),"key":"likes"}}"#, ["Ann", "Ben"],
            className: "QAuthor"),
        .set(
            "$relatedTo one member", #"{"$relatedTo":{"object":\#(V.item("charlie")),"key":"likes"}}"#, ["Cal"],
            className: "QAuthor"),
        .set(
            "$relatedTo owner without relation", #"{"$relatedTo":{"object":\#(V.item("Délice")),"key":"likes"}}"#, [],
            className: "QAuthor"),
        .set(
            "$relatedTo other key", #"{"$relatedTo":{"object":\#(V.item("alpha")),"key":"dislikes"}}"#, [],
            className: "QAuthor"),
        .set(
            "$relatedTo and field", #"{"$relatedTo":{"object":\#(V.item("alpha")),"key":"likes"},"country":"US"}"#, ["Ben"],
            className: "QAuthor"),
        .set(
            "$relatedTo in $or",
            #"{"$or":[{"$relatedTo":{"object":\#(V.item("Bravo")),"key":"likes"}},{"$relatedTo":{"object":\#(V.item("charlie")),"key":"likes"}}]}"#,
            ["Ann", "Cal"], className: "QAuthor"),
        .set(
            "$relatedTo as $inQuery source",
            #"{"author":{"$inQuery":{"className":"QAuthor","where":{"$relatedTo":{"object":\#(V.item("Bravo")),"key":"likes"}}}}}"#,
            ["p1"], className: "QPost"),
    ]

    static let logic: [QE2ECase] = [
        .set("$or", #"{"$or":[{"name":"alpha"},{"score":{"$lt":0}}]}"#, ["alpha", "charlie"]),
        .set("$or overlapping", #"{"$or":[{"flag":true},{"tags":"red"}]}"#, ["alpha", "charlie", "東京", "omega"]),
        .set("$and", #"{"$and":[{"flag":true},{"score":{"$gte":0}}]}"#, ["alpha", "東京"]),
        .set("$and same field", #"{"$and":[{"score":{"$gt":0}},{"score":{"$lt":50}}]}"#, ["alpha", "Bravo", "zulu"]),
        .set("$or empty", #"{"$or":[]}"#, []),
        .set("$and empty", #"{"$and":[]}"#, all),
        .set("$or with a single clause", #"{"$or":[{"name":"zulu"}]}"#, ["zulu"]),
        .set("field and $or", #"{"flag":true,"$or":[{"tags":"GREEN"},{"score":{"$lt":0}}]}"#, ["omega", "charlie"]),
        .set(
            "depth 2: $or of $and", #"{"$or":[{"score":{"$gt":50}},{"$and":[{"flag":true},{"tags":"green"}]}]}"#,
            ["alpha", "charlie", "Délice"]),
        .set(
            "depth 2: $and of $or",
            #"{"$and":[{"$or":[{"flag":false},{"score":{"$lt":0}}]},{"$or":[{"tags":"blue"},{"nums":{"$size":0}}]}]}"#,
            ["Bravo", "charlie", "Délice"]),
        .set(
            "depth 3: $and of $or of $and",
            #"{"$and":[{"$or":[{"name":{"$regex":"^[a-z]"}},{"score":{"$lt":0}}]},{"$or":[{"$and":[{"flag":true},{"nums":3}]},{"name":"zulu"}]}]}"#,
            ["alpha", "zulu"]),
        .set(
            "depth 3: $or of $and of $or",
            #"{"$or":[{"$and":[{"$or":[{"name":"alpha"},{"name":"Bravo"}]},{"flag":false}]},{"name":"東京"}]}"#,
            ["Bravo", "東京"]),
        .set(
            "depth 3 with subquery and relation",
            #"{"$or":[{"post":{"$inQuery":{"className":"QPost","where":{"$or":[{"title":"World"},{"author":{"$exists":false}}]}}}},{"likes":\#(V.author("Cal"))}]}"#,
            ["Bravo", "charlie", "Délice", "zulu"]),
        .set(
            "$and with geo and date inside $or",
            #"{"$and":[{"score":{"$exists":true}},{"$or":[{"loc":{"$within":{"$box":[\#(V.point(45, -5)),\#(V.point(55, 5))]}}},{"when":{"$lt":\#(V.date("2023-01-01T00:00:00Z"))}}]}]}"#,
            ["charlie", "Délice", "zulu"]),
        .set(
            "$or of negations", #"{"$or":[{"name":{"$exists":false}},{"tags":{"$nin":["red","blue","GREEN"]}}]}"#,
            ["Délice", "zulu", "empty"]),
        .set(
            "$and of $exists false and $ne", #"{"$and":[{"score":{"$exists":false}},{"name":{"$ne":"omega"}}]}"#, ["empty"]),
    ]

    @Test(arguments: comparisons) func comparison(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }
    @Test(arguments: arraysAndMissing) func arrayAndMissing(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }
    @Test(arguments: regexes) func regex(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }
    @Test(arguments: subqueries) func subqueryAndRelation(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }
    @Test(arguments: logic) func andOr(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }

    /// Case names are unique across the QueryE2E tables, so a failure names one row.
    @Test func caseNamesAreUnique() {
        let tables = [
            Self.comparisons, Self.arraysAndMissing, Self.regexes, Self.subqueries, Self.logic, QueryE2EGeoTests.cases,
            QueryE2EOptionsTests.orders, QueryE2EErrorTests.cases,
        ]
        let names = tables.flatMap { $0.map(\.name) }
        let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "repeated case names: \(repeated)")
    }
}
