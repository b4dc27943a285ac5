/// `If-None-Match` as RFC 9110 § 13.1.2 reads it, for files and their thumbnails alike.
enum EntityTag {
    /// Whether the `If-None-Match` field lines `values` match `etag` (the answer's own tag, in
    /// its `"..."` or `W/"..."` form): `*` matches any current representation; otherwise the
    /// lines are one comma-separated list of entity tags, and any of them matching is enough,
    /// compared weakly (`W/` ignored on both sides, the quoted text compared exactly). The list
    /// is read up to the first entry that is no entity tag; what follows it is ignored.
    static func ifNoneMatch(_ values: [String], matches etag: String) -> Bool {
        let own = opaque(Substring(etag))
        for value in values {
            var rest = Substring(value)
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
                if rest.isEmpty { break }
                if rest.first == "*" { return true }
                if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
                // An opaque tag is a quoted run of characters other than `"` (commas included).
                guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { break }
                if let own, rest[rest.index(after: rest.startIndex)..<close] == own { return true }
                rest = rest[rest.index(after: close)...]
            }
        }
        return false
    }

    /// The text between the quotes of an entity tag, `W/` dropped; nil for no entity tag.
    private static func opaque(_ tag: Substring) -> Substring? {
        let strong = tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
        guard strong.count >= 2, strong.first == "\"", strong.last == "\"" else { return nil }
        return strong.dropFirst().dropLast()
    }
}
