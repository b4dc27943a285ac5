import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

private func point(_ latitude: Double, _ longitude: Double) -> String {
    #"{"__type":"GeoPoint","latitude":\#(latitude),"longitude":\#(longitude)}"#
}

/// A `$nearSphere` condition on `loc` with an optional distance modifier such as
/// `"$maxDistanceInKilometers":500`.
private func near(_ latitude: Double, _ longitude: Double, _ modifier: String? = nil) -> String {
    #"{"loc":{"$nearSphere":\#(point(latitude, longitude))\#(modifier.map { "," + $0 } ?? "")}}"#
}

private let london = (51.5074, -0.1278)
private let paris = (48.8566, 2.3522)
private let newYork = (40.7128, -74.006)
private let tokyo = (35.6762, 139.6503)
private let sydney = (-33.8688, 151.2093)

/// Geo queries: `$nearSphere` with each distance unit (sorted by distance unless ordered),
/// `$within`/`$geoWithin` with `$box` and `$polygon`.
///
/// The fixture's points: alpha San Francisco, Bravo New York, charlie London, Délice Paris,
/// 東京 Tokyo, zulu Sydney. Distances (great circle, Earth radius 6371 km): London–Paris 344 km
/// (213 mi, 0.054 rad), Paris–New York 5837 km (0.916 rad), Tokyo–Sydney 7826 km (1.228 rad),
/// Tokyo–San Francisco 8275 km (1.299 rad).
@Suite struct QueryE2EGeoTests {
    static let cases: [QE2ECase] = [
        // $nearSphere, sorted nearest first.
        .ordered("near London within 500 km", near(london.0, london.1, #""$maxDistanceInKilometers":500"#), ["charlie", "Délice"]),
        .ordered("near London within 300 km", near(london.0, london.1, #""$maxDistanceInKilometers":300"#), ["charlie"]),
        .ordered("near Paris within 250 mi", near(paris.0, paris.1, #""$maxDistanceInMiles":250"#), ["Délice", "charlie"]),
        .ordered("near Paris within 200 mi", near(paris.0, paris.1, #""$maxDistanceInMiles":200"#), ["Délice"]),
        .ordered("near Paris within 1 rad", near(paris.0, paris.1, #""$maxDistanceInRadians":1.0"#), ["Délice", "charlie", "Bravo"]),
        .ordered("near Paris within 0.9 rad", near(paris.0, paris.1, #""$maxDistanceInRadians":0.9"#), ["Délice", "charlie"]),
        .ordered("near Paris $maxDistance (radians)", near(paris.0, paris.1, #""$maxDistance":0.06"#), ["Délice", "charlie"]),
        .ordered("near Paris within 0 rad", near(paris.0, paris.1, #""$maxDistanceInRadians":0"#), ["Délice"]),
        .ordered("near New York, no limit", near(newYork.0, newYork.1), ["Bravo", "alpha", "charlie", "Délice", "東京", "zulu"]),
        .ordered("near Tokyo within 8000 km", near(tokyo.0, tokyo.1, #""$maxDistanceInKilometers":8000"#), ["東京", "zulu"]),
        .ordered("near Tokyo within 1.3 rad", near(tokyo.0, tokyo.1, #""$maxDistanceInRadians":1.3"#), ["東京", "zulu", "alpha"]),
        .ordered("near the South Pole within 100 km", near(-90, 0, #""$maxDistanceInKilometers":100"#), []),
        .ordered("near the dateline, no limit", near(0, 180), ["zulu", "東京", "alpha", "Bravo", "charlie", "Délice"]),
        // An explicit order wins over distance.
        .ordered(
            "near Paris ordered by name", near(paris.0, paris.1, #""$maxDistanceInRadians":1.0"#), ["Bravo", "Délice", "charlie"],
            ["order": "name"]),
        .ordered(
            "near Paris ordered by -score", near(paris.0, paris.1, #""$maxDistanceInRadians":1.0"#), ["Délice", "Bravo", "charlie"],
            ["order": "-score"]),
        // With other conditions and a window.
        .ordered(
            "near Paris and flag", #"{"flag":true,"loc":{"$nearSphere":\#(point(paris.0, paris.1))}}"#,
            ["charlie", "alpha", "東京"]),
        .ordered(
            "near Paris and $or",
            #"{"loc":{"$nearSphere":\#(point(paris.0, paris.1)),"$maxDistanceInKilometers":9000},"$or":[{"flag":false},{"score":{"$lt":0}}]}"#,
            ["Délice", "charlie", "Bravo"]),
        .ordered(
            "near Paris inside $and", #"{"$and":[\#(near(paris.0, paris.1, #""$maxDistanceInRadians":1.0"#)),{"score":{"$exists":true}}]}"#,
            ["Délice", "charlie", "Bravo"]),
        .ordered("near Sydney, limit 2", near(sydney.0, sydney.1), ["zulu", "東京"], ["limit": "2"]),
        .ordered("near Sydney, skip 1 limit 2", near(sydney.0, sydney.1), ["東京", "alpha"], ["skip": "1", "limit": "2"]),
        // $within / $geoWithin a box [southwest, northeast].
        .set("$within $box North America", #"{"loc":{"$within":{"$box":[\#(point(30, -130)),\#(point(45, -70))]}}}"#, ["alpha", "Bravo"]),
        .set("$within $box Europe", #"{"loc":{"$within":{"$box":[\#(point(45, -5)),\#(point(55, 5))]}}}"#, ["charlie", "Délice"]),
        .set("$geoWithin $box Australia", #"{"loc":{"$geoWithin":{"$box":[\#(point(-40, 140)),\#(point(0, 160))]}}}"#, ["zulu"]),
        .set("$within $box empty", #"{"loc":{"$within":{"$box":[\#(point(0, 0)),\#(point(10, 10))]}}}"#, []),
        .set("$within $box as pairs", #"{"loc":{"$within":{"$box":[[30,-130],[45,-70]]}}}"#, ["alpha", "Bravo"]),
        .set(
            "$within $box and field", #"{"loc":{"$within":{"$box":[\#(point(30, -130)),\#(point(45, -70))]}},"flag":true}"#,
            ["alpha"]),
        // $geoWithin a polygon of [lat, lng] vertices.
        .set("$geoWithin $polygon of 60 vertices around Europe", #"{"loc":{"$geoWithin":{"$polygon":[[45.0,30.0],[48.1359,29.8357],[51.2374,29.3444],[54.2705,28.5317],[57.2021,27.4064],[60.0,25.9808],[62.6336,24.2705],[65.0739,22.2943],[67.2943,20.0739],[69.2705,17.6336],[70.9808,15.0],[72.4064,12.2021],[73.5317,9.2705],[74.3444,6.2374],[74.8357,3.1359],[75.0,0.0],[74.8357,-3.1359],[74.3444,-6.2374],[73.5317,-9.2705],[72.4064,-12.2021],[70.9808,-15.0],[69.2705,-17.6336],[67.2943,-20.0739],[65.0739,-22.2943],[62.6336,-24.2705],[60.0,-25.9808],[57.2021,-27.4064],[54.2705,-28.5317],[51.2374,-29.3444],[48.1359,-29.8357],[45.0,-30.0],[41.8641,-29.8357],[38.7626,-29.3444],[35.7295,-28.5317],[32.7979,-27.4064],[30.0,-25.9808],[27.3664,-24.2705],[24.9261,-22.2943],[22.7057,-20.0739],[20.7295,-17.6336],[19.0192,-15.0],[17.5936,-12.2021],[16.4683,-9.2705],[15.6556,-6.2374],[15.1643,-3.1359],[15.0,-0.0],[15.1643,3.1359],[15.6556,6.2374],[16.4683,9.2705],[17.5936,12.2021],[19.0192,15.0],[20.7295,17.6336],[22.7057,20.0739],[24.9261,22.2943],[27.3664,24.2705],[30.0,25.9808],[32.7979,27.4064],[35.7295,28.5317],[38.7626,29.3444],[41.8641,29.8357]]}}}"#, ["charlie", "Délice"]),
        .set("$geoWithin $polygon triangle over Europe", #"{"loc":{"$geoWithin":{"$polygon":[[40,-10],[60,-10],[50,20]]}}}"#, ["charlie", "Délice"]),
        .set(
            "$geoWithin $polygon Western Pacific", #"{"loc":{"$geoWithin":{"$polygon":[[-40,130],[-40,160],[40,160],[40,130]]}}}"#,
            ["東京", "zulu"]),
        .set(
            "$geoWithin $polygon triangle between SF and NY", #"{"loc":{"$geoWithin":{"$polygon":[[30,-130],[50,-100],[30,-70]]}}}"#,
            []),
        .set(
            "$geoWithin $polygon west of Paris", #"{"loc":{"$geoWithin":{"$polygon":[[45,-5],[55,-5],[55,1],[45,1]]}}}"#,
            ["charlie"]),
        .set(
            "$geoWithin $polygon of GeoPoints",
            #"{"loc":{"$geoWithin":{"$polygon":[\#(point(40, -10)),\#(point(60, -10)),\#(point(50, 20))]}}}"#,
            ["charlie", "Délice"]),
        .set(
            "$within $polygon and field", #"{"loc":{"$within":{"$polygon":[[-40,130],[-40,160],[40,160],[40,130]]}},"name":"zulu"}"#,
            ["zulu"]),
        // Out-of-range points are rejected with 302.
        .error("$nearSphere latitude 91", near(91, 0), code: 302),
        .error("$nearSphere longitude -181", near(0, -181), code: 302),
        .error("$box corner out of range", #"{"loc":{"$within":{"$box":[\#(point(0, 0)),\#(point(95, 10))]}}}"#, code: 302),
        .error("$polygon vertex out of range", #"{"loc":{"$geoWithin":{"$polygon":[[0,0],[10,200],[10,0]]}}}"#, code: 302),
        .error("GeoPoint equality out of range", #"{"loc":\#(point(100, 0))}"#, code: 302),
        .error("GeoPoint $in out of range", #"{"loc":{"$in":[\#(point(0, 200))]}}"#, code: 302),
        // Malformed geo conditions are 102.
        .error("GeoPoint equality with text coordinates", #"{"loc":{"__type":"GeoPoint","latitude":"north","longitude":0}}"#, code: 102),
        .error("$nearSphere not a point", #"{"loc":{"$nearSphere":{"latitude":"x","longitude":0}}}"#, code: 102),
        .error("$maxDistanceInKilometers negative", near(0, 0, #""$maxDistanceInKilometers":-1"#), code: 102),
        .error("$maxDistanceInMiles not a number", near(0, 0, #""$maxDistanceInMiles":"far""#), code: 102),
        .error("$maxDistance without $nearSphere", #"{"loc":{"$maxDistanceInRadians":1}}"#, code: 102),
        .error("$box with one corner", #"{"loc":{"$within":{"$box":[\#(point(0, 0))]}}}"#, code: 102),
        .error("$polygon with two vertices", #"{"loc":{"$geoWithin":{"$polygon":[[0,0],[1,1]]}}}"#, code: 102),
        .error("$within without a shape", #"{"loc":{"$within":{"$center":[[0,0],1]}}}"#, code: 102),
    ]

    @Test(arguments: cases) func geo(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }

    /// `count` with `$nearSphere` counts the matches, and `limit=0` returns none of them.
    @Test func nearSphereCount() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let condition = near(london.0, london.1, #""$maxDistanceInKilometers":500"#)
            let counted = try await qe2eFind(api, "QItem", ["where": condition, "count": "1", "limit": "0"])
            #expect(counted.status == .ok, "\(counted)")
            #expect(counted["count"] == 2, "\(counted)")
            #expect(counted.results.isEmpty, "\(counted)")
            let first = try await qe2eFind(api, "QItem", ["where": condition, "count": "1", "limit": "1"])
            #expect(first["count"] == 2, "\(first)")
            #expect(fixture.labels(first.results) == ["charlie"], "\(first)")
        }
    }
}
