/// One full-text search as a client asks it (`GET /1.1/search/select`), read from its
/// parameters by the route, or built by the JavaScript and Swift data APIs.
public struct SearchRequest: Sendable, Hashable {
    /// The class searched (`clazz`); nil searches every class search is on for.
    public var className: String?
    /// The query text (`q`), in LeanCloud's query-string syntax.
    public var query: String
    /// The most results of a page (`limit`, 1...1000, default 100).
    public var limit: Int
    /// Results skipped (`skip`); on a scroll page, skipped from where the scroll stands.
    public var skip: Int
    /// The scroll to go on with (`sid` of the previous answer).
    public var scrollID: String?
    /// The fields answered (`fields`, or `keys`); nil answers every field the caller sees.
    public var keys: KeySelection?
    /// The fields highlighted (`highlights`: a list, or `*` for every indexed one); nil for none.
    public var highlights: [String]?
    /// Pointer fields to answer as objects (`include`).
    public var include: [String]
    /// The order (`order`, `-score,createdAt` style, or `sort`'s field entries); empty for relevance.
    public var order: [SortKey]
    /// Whether results carry their ACL (`returnACL`).
    public var returnACL: Bool

    /// The default page size.
    public static let defaultLimit = 100

    /// Creates a request.
    public init(
        className: String?, query: String, limit: Int = SearchRequest.defaultLimit, skip: Int = 0,
        scrollID: String? = nil, keys: KeySelection? = nil, highlights: [String]? = nil, include: [String] = [],
        order: [SortKey] = [], returnACL: Bool = false
    ) {
        self.className = className
        self.query = query
        self.limit = limit
        self.skip = skip
        self.scrollID = scrollID
        self.keys = keys
        self.highlights = highlights
        self.include = include
        self.order = order
        self.returnACL = returnACL
    }
}

/// A page of search results, as the caller may see them.
public struct SearchAnswer: Sendable, Hashable {
    /// The page's results, each the caller's view of its object.
    public var results: [SearchResult]
    /// How many objects match in all (the caller's view: ones it can't read aren't counted).
    public var hits: Int
    /// The scroll id of the next page; nil on the last page.
    public var scrollID: String?

    /// Creates an answer.
    public init(results: [SearchResult], hits: Int, scrollID: String?) {
        self.results = results
        self.hits = hits
        self.scrollID = scrollID
    }
}

/// One search result: the object and its highlighted fragments.
public struct SearchResult: Sendable, Hashable {
    /// The caller's view of the object (its class in `className`).
    public var object: StoredObject
    /// Per highlighted field, the fragments holding a match, each match in `<em>…</em>`; nil when
    /// the request asked for no highlights.
    public var highlight: [String: [String]]?

    /// Creates a result.
    public init(object: StoredObject, highlight: [String: [String]]?) {
        self.object = object
        self.highlight = highlight
    }
}
