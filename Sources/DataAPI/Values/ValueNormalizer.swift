package import JSON

/// Checks a value a client wants to store and rewrites it into its stored form.
///
/// Dates are rewritten to canonical ISO text (so they compare as text), a full `Object` value
/// becomes a `Pointer`, typed values are checked for their required members, and nested keys are
/// checked for `$`, `.` and a leading `__`.
package struct ValueNormalizer: Sendable {
    /// Classes that exist, asked when a Pointer is stored: a pointer to a class that was never
    /// written is an error, not a silent dangling reference.
    public var classExists: @Sendable (String) -> Bool

    /// Creates a normalizer that asks `classExists` about pointer targets.
    public init(classExists: @escaping @Sendable (String) -> Bool) {
        self.classExists = classExists
    }

    /// The stored form of `value`, or an error naming the `field`.
    public func normalize(_ value: JSONValue, field: String, depth: Int = 0) throws(DataAPIError) -> JSONValue {
        guard depth < 64 else { throw DataAPIError(.incorrectType, "Value of \(field) is nested too deeply.") }
        switch value {
        case .null, .bool, .int, .string: return value
        case .double(let d):
            guard d.isFinite else { throw DataAPIError(.incorrectType, "Invalid number for \(field).") }
            return value
        case .array(let elements):
            var out: [JSONValue] = []
            out.reserveCapacity(elements.count)
            for element in elements { out.append(try normalize(element, field: field, depth: depth + 1)) }
            return .array(out)
        case .object(let members):
            if let tag = members["__type"] {
                guard case .string(let type) = tag else {
                    throw DataAPIError(.incorrectType, "Invalid __type for \(field).")
                }
                return try normalizeTyped(type, members, field: field)
            }
            if members["__op"] != nil {
                throw DataAPIError(.incorrectType, "Operations are only allowed on top-level fields (\(field)).")
            }
            var out: [String: JSONValue] = [:]
            for (key, element) in members {
                guard !key.isEmpty, !key.contains("$"), !key.contains("."), !key.hasPrefix("__") else {
                    throw DataAPIError(.invalidNestedKey, "Invalid nested key '\(key)' in \(field).")
                }
                out[key] = try normalize(element, field: field, depth: depth + 1)
            }
            return .object(out)
        }
    }

    private func normalizeTyped(
        _ type: String, _ m: [String: JSONValue], field: String
    ) throws(DataAPIError) -> JSONValue {
        switch type {
        case "Date":
            guard case .string(let iso)? = m["iso"], let canonical = ISODate.normalized(iso) else {
                throw DataAPIError(.incorrectType, "Invalid Date for \(field): expected {\"__type\":\"Date\",\"iso\":...}.")
            }
            return ["__type": "Date", "iso": .string(canonical)]
        case "Bytes":
            guard case .string(let base64)? = m["base64"], Base64.isValid(base64) else {
                throw DataAPIError(.incorrectType, "Invalid Bytes for \(field): expected base64 text.")
            }
            return ["__type": "Bytes", "base64": .string(base64)]
        case "Pointer", "Object":
            guard case .string(let className)? = m["className"], case .string(let objectId)? = m["objectId"],
                !objectId.isEmpty
            else {
                throw DataAPIError(.invalidPointer, "Invalid Pointer for \(field): className and objectId are required.")
            }
            // The Swift SDK refers to a file as a Pointer to `_File`: it is stored as the File it means.
            if className == "_File" { return ["__type": "File", "objectId": .string(objectId)] }
            guard Names.isValidClassName(className), classExists(className) else {
                throw DataAPIError(.invalidPointer, "Invalid Pointer for \(field): class \(className) does not exist.")
            }
            return ["__type": "Pointer", "className": .string(className), "objectId": .string(objectId)]
        case "Relation":
            guard case .string(let className)? = m["className"], Names.isValidClassName(className) else {
                throw DataAPIError(.invalidRelation, "Invalid Relation for \(field): className is required.")
            }
            return ["__type": "Relation", "className": .string(className)]
        case "GeoPoint":
            guard let latitude = m["latitude"]?.doubleValue, let longitude = m["longitude"]?.doubleValue else {
                throw DataAPIError(.invalidGeoPoint, "Invalid GeoPoint for \(field): latitude and longitude are required.")
            }
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw DataAPIError(
                    .invalidGeoPoint,
                    "Invalid GeoPoint for \(field): latitude must be within [-90, 90] and longitude within [-180, 180]."
                )
            }
            return ["__type": "GeoPoint", "latitude": m["latitude"]!, "longitude": m["longitude"]!]
        case "File":
            // Files are referenced by id: LeanCloud's REST docs and the Objective-C and PHP SDKs
            // send `id`, the JS SDK `objectId`. Only the reference is kept: answers take the url,
            // name and metadata from the `_File` object, never from what a client wrote here.
            guard case .string(let id)? = m["objectId"] ?? m["id"], !id.isEmpty else {
                throw DataAPIError(.incorrectType, "Invalid File for \(field): objectId is required.")
            }
            return ["__type": "File", "objectId": .string(id)]
        default:
            throw DataAPIError(.incorrectType, "Unknown __type '\(type)' for \(field).")
        }
    }
}
