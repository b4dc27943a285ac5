public import JSON

/// A query on one class: condition, order, window, projection and includes.
public struct ObjectQuery: Sendable, Hashable {
    /// The queried class.
    public var className: String
    /// The condition; nil matches every object.
    public var predicate: QueryPredicate?
    /// Sort keys, most significant first.
    public var order: [SortKey]
    /// At most this many results (0...1000).
    public var limit: Int
    /// Results to skip.
    public var skip: Int
    /// Fields to return; nil returns every field.
    public var keys: KeySelection?
    /// Pointer paths to resolve into objects (`author`, `post.author`).
    public var include: [String]
    /// Whether results carry their ACL.
    public var returnACL: Bool
    /// Whether the master key asked: the engines index the fields it uses at once, while a
    /// client's queries only count toward an index (a client could add and query any number of
    /// fields).
    public var fromMaster = false

    /// The largest `limit` a query may ask for.
    public static let maxLimit = 1000
    /// The most keys a query sorts by (102 past it): SQLite refuses a few thousand ORDER BY
    /// terms with an error of its own, and no app sorts by more than a handful.
    public static let maxOrderKeys = 32

    /// Creates a query; every part but the class is optional.
    public init(
        className: String, predicate: QueryPredicate? = nil, order: [SortKey] = [], limit: Int = 100,
        skip: Int = 0, keys: KeySelection? = nil, include: [String] = [], returnACL: Bool = false
    ) {
        self.className = className
        self.predicate = predicate
        self.order = order
        self.limit = limit
        self.skip = skip
        self.keys = keys
        self.include = include
        self.returnACL = returnACL
    }
}

/// One sort key of a query.
public struct SortKey: Sendable, Hashable {
    /// The field or dotted path.
    public var key: String
    /// Whether the order is descending (`-key`).
    public var descending: Bool

    /// Creates a sort key.
    public init(key: String, descending: Bool) {
        self.key = key
        self.descending = descending
    }
}

/// Which fields a query or fetch returns: `keys=a,b` selects, `keys=-c` excludes.
public struct KeySelection: Sendable, Hashable {
    /// Fields to return (with the built-ins); empty when only exclusions were given.
    public var selected: Set<String>
    /// Fields to leave out.
    public var excluded: Set<String>

    /// Parses a comma-separated list such as `title,-content`.
    public init(_ list: String) {
        var selected: Set<String> = []
        var excluded: Set<String> = []
        for part in list.split(separator: ",") {
            let key = part.trimmingWhitespace
            if key.hasPrefix("-") { excluded.insert(String(key.dropFirst())) } else if !key.isEmpty { selected.insert(key) }
        }
        self.selected = selected
        self.excluded = excluded
    }

    /// The fields of `object` this selection keeps; built-ins always stay unless excluded.
    public func apply(to object: [String: JSONValue]) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (key, value) in object {
            if excluded.contains(key) { continue }
            // A dotted selection (`author.name`) keeps the top-level field it starts with.
            let keep = selected.isEmpty || Names.builtInFields.contains(key) || selected.contains(key)
                || selected.contains(where: { $0.hasPrefix(key + ".") })
            if keep { result[key] = value }
        }
        return result
    }
}

extension Substring {
    var trimmingWhitespace: String {
        String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
