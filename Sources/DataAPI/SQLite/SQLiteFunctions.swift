internal import GRDB

/// SQL functions the query compiler relies on, added to every connection: SQLite has no regular
/// expressions or spherical geometry of its own.
enum SQLiteFunctions {
    /// `fh_regexp(pattern, options, text)`: whether `text` contains a match.
    static let regexp = DatabaseFunction("fh_regexp", argumentCount: 3, pure: true) { values in
        guard let pattern = String.fromDatabaseValue(values[0]), let options = String.fromDatabaseValue(values[1]),
            let text = String.fromDatabaseValue(values[2])
        else { return false }
        do {
            return try RegexCache.shared.matches(pattern, options: options, text)
        } catch {
            // SQLite keeps only the message: `SQLiteStorage` knows it and answers the DataAPIError.
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: RegexCache.timeout.message)
        }
    }

    /// `fh_distance(lat1, lng1, lat2, lng2)`: great-circle distance in radians.
    static let distance = DatabaseFunction("fh_distance", argumentCount: 4, pure: true) { values in
        let numbers = values.compactMap { Double.fromDatabaseValue($0) }
        guard numbers.count == 4 else { return nil }
        return GeoPoint(latitude: numbers[0], longitude: numbers[1])
            .distance(to: GeoPoint(latitude: numbers[2], longitude: numbers[3]))
    }

    /// `fh_in_polygon(lat, lng, lat1, lng1, lat2, lng2, ...)`: whether the point lies in the
    /// polygon whose vertices follow. The vertices are bound as numbers, so nothing is parsed for
    /// each row the function sees.
    static let inPolygon = DatabaseFunction("fh_in_polygon", argumentCount: nil, pure: true) { values in
        let numbers = values.compactMap { Double.fromDatabaseValue($0) }
        guard numbers.count == values.count, numbers.count >= 8, numbers.count % 2 == 0 else { return false }
        let polygon = stride(from: 2, to: numbers.count, by: 2).map {
            GeoPoint(latitude: numbers[$0], longitude: numbers[$0 + 1])
        }
        return GeoPoint(latitude: numbers[0], longitude: numbers[1]).isInside(polygon)
    }

    static func install(in db: Database) {
        db.add(function: regexp)
        db.add(function: distance)
        db.add(function: inPolygon)
    }
}
