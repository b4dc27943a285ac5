public import JSON

/// A `where` condition, parsed and checked, independent of any storage engine.
public indirect enum QueryPredicate: Sendable, Hashable {
    /// Every predicate holds (an empty list holds always).
    case and([QueryPredicate])
    /// At least one predicate holds (an empty list never holds).
    case or([QueryPredicate])
    /// A comparison of the value at `key` with a constant.
    case compare(key: String, ComparisonOperator, JSONValue)
    /// The value at `key` is (or, negated, is not) one of the constants.
    case oneOf(key: String, [JSONValue], negated: Bool)
    /// The field at `key` exists (or, with false, does not).
    case exists(key: String, Bool)
    /// The array at `key` contains every one of the constants (`$all`).
    case containsAll(key: String, [JSONValue])
    /// The array at `key` has this many elements (`$size`).
    case size(key: String, Int)
    /// The string at `key` matches a regular expression with options from `imsx` (`$regex`).
    case regex(key: String, pattern: String, options: String)
    /// The Pointer at `key` points to an object matching the subquery (`$inQuery`, or `$notInQuery`
    /// when negated).
    case matchesQuery(key: String, Subquery, negated: Bool)
    /// The value at `key` equals the `subKey` of an object matching the subquery (`$select`, or
    /// `$dontSelect` when negated).
    case matchesKeyInQuery(key: String, Subquery, subKey: String, negated: Bool)
    /// The object is a member of the Relation `field` of the object `ownerClass`/`ownerId` (`$relatedTo`).
    case relatedTo(ownerClass: String, ownerId: String, field: String)
    /// The GeoPoint at `key` is within `maxDistance` radians of a point (`$nearSphere`); results
    /// sort by distance unless the query orders them otherwise.
    case nearSphere(key: String, GeoPoint, maxDistance: Double?)
    /// The GeoPoint at `key` lies in a box (`$within: {$box: [southwest, northeast]}`).
    case withinBox(key: String, southwest: GeoPoint, northeast: GeoPoint)
    /// The GeoPoint at `key` lies in a polygon (`$geoWithin: {$polygon: [...]}`).
    case withinPolygon(key: String, [GeoPoint])
    /// The object's ACL lets one of these identities (`*`, a user id, `role:Name`) read it, or it
    /// has no ACL. Added by the data service, never parsed from a client's `where`; the engines
    /// compare the ACL's keys with them as bytes, as `ACLCheck` does.
    case readableBy([Identity])
}

/// A query nested in a condition: a class and a condition (no order, window or includes).
public struct Subquery: Sendable, Hashable {
    /// The class queried.
    public var className: String
    /// Its condition; nil matches every object.
    public var predicate: QueryPredicate?

    /// Creates a subquery.
    public init(className: String, predicate: QueryPredicate?) {
        self.className = className
        self.predicate = predicate
    }
}

/// A point on Earth, in degrees.
public struct GeoPoint: Sendable, Hashable {
    /// Latitude, -90...90.
    public var latitude: Double
    /// Longitude, -180...180.
    public var longitude: Double

    /// Creates a point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The great-circle distance to another point, in radians.
    public func distance(to other: GeoPoint) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (other.latitude - latitude) * toRadians
        let dLng = (other.longitude - longitude) * toRadians
        let a = pow2(sin(dLat / 2))
            + cos(latitude * toRadians) * cos(other.latitude * toRadians) * pow2(sin(dLng / 2))
        return 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    /// Whether the point lies inside a polygon (ray casting; the polygon closes itself).
    public func isInside(_ polygon: [GeoPoint]) -> Bool {
        guard polygon.count >= 3 else { return false }
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i]
            let b = polygon[j]
            if (a.longitude > longitude) != (b.longitude > longitude),
                latitude < (b.latitude - a.latitude) * (longitude - a.longitude) / (b.longitude - a.longitude) + a.latitude
            {
                inside.toggle()
            }
            j = i
        }
        return inside
    }

    private func pow2(_ x: Double) -> Double { x * x }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The comparisons a `where` clause can make.
public enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "$eq"
    case notEqual = "$ne"
    case less = "$lt"
    case lessOrEqual = "$lte"
    case greater = "$gt"
    case greaterOrEqual = "$gte"
}
