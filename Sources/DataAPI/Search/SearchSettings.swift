/// Which fields of a class full-text search indexes (`/1.1/search/select`).
///
/// LeanCloud sets this in its console only; here the master key sets it (the schema API and
/// `functionhost search`). `objectId`, `createdAt` and `updatedAt` are always searchable by
/// their own query syntax and are never listed.
public struct SearchSettings: Sendable, Hashable {
    /// The class.
    public var className: String
    /// The indexed top-level fields, in the order given, each once.
    public var fields: [String]

    /// The most fields one class indexes (LeanCloud allows 10 extra columns per class).
    public static let maxFields = 10
    /// The most classes an app indexes (LeanCloud allows 10).
    public static let maxClasses = 10

    /// Creates settings; `fields` are kept in order without repeats.
    public init(className: String, fields: [String]) {
        self.className = className
        var seen = Set<String>()
        self.fields = fields.filter { seen.insert($0).inserted }
    }
}
