/// Full-text search on this engine (being built: the seam only).
extension SQLiteStorage {
    package func searchSettings() async throws -> [SearchSettings] { [] }

    package func setSearch(_ className: String, to settings: SearchSettings?) async throws {
        throw DataAPIError(.operationForbidden, "Search is being built.")
    }

    package func search(_ plan: SearchPlan) async throws -> SearchMatches {
        throw DataAPIError(.objectNotFound, "Search is not on for this class.")
    }
}
