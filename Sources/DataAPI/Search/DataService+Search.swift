/// Full-text search through the one authorization step.
extension DataService {
    /// A page of the objects matching a search, as the caller may see them: the caller must be
    /// allowed to `find` the class, and an object it may not read is neither answered nor
    /// counted.
    ///
    /// - Throws: 102 for a query that doesn't parse or names a field search isn't on for; 101
    ///   when search isn't on for the class; 119/403 as a `find` would; 1 for an unknown or
    ///   expired scroll.
    public func search(_ request: SearchRequest, caller: Caller) async throws -> SearchAnswer {
        throw DataAPIError(.operationForbidden, "Search is being built.")
    }

    /// The classes search is on for, and their fields (master key only).
    public func searchSettings(caller: Caller) async throws -> [SearchSettings] {
        throw DataAPIError(.operationForbidden, "Search is being built.")
    }

    /// Turns search on for a class's `fields` (indexing what the class holds, in one
    /// transaction), changes its fields, or turns it off (`fields` nil). Master key only.
    public func setSearch(_ className: String, fields: [String]?, caller: Caller) async throws -> SearchSettings? {
        throw DataAPIError(.operationForbidden, "Search is being built.")
    }
}
