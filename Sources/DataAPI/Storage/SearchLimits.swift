/// The checks both engines make on what they are asked to index and to search, so that the
/// same settings and the same query are refused, with the same code, whichever engine runs.
package enum SearchLimits {
    /// The most nodes (matches, conditions, AND/OR/NOT) of one search expression.
    package static let maxNodes = 200
    /// The deepest nesting of AND/OR/NOT in one search expression.
    package static let maxDepth = 16
    /// The most tokens of one text match (a phrase of more is refused).
    package static let maxTokens = 64

    /// Throws unless `settings` may be recorded for its class while `otherClasses` other classes
    /// have search on.
    ///
    /// - Throws: 103 for an invalid class name; 119 for an internal class; 1 for no field, too
    ///   many fields or too many classes; 105 for a field that isn't a plain top-level field.
    package static func check(_ settings: SearchSettings, otherClasses: Int) throws {
        let className = settings.className
        guard Names.isValidClassName(className) else {
            throw DataAPIError(.invalidClassName, "Invalid class name: \(className).")
        }
        guard !Names.internalClasses.contains(className) else {
            throw DataAPIError(.operationForbidden, "Search can't be turned on for the internal class \(className).")
        }
        guard !settings.fields.isEmpty else {
            throw DataAPIError(.badParameters, "Search needs at least one field to index.")
        }
        guard settings.fields.count <= SearchSettings.maxFields else {
            throw DataAPIError(
                .badParameters, "Search indexes at most \(SearchSettings.maxFields) fields of a class; \(settings.fields.count) given.")
        }
        for field in settings.fields where field == "ACL" || !Names.isValidFieldName(field) {
            throw DataAPIError(.invalidKeyName, "Search can't index the field \(field): only plain top-level fields are indexed.")
        }
        guard otherClasses < SearchSettings.maxClasses else {
            throw DataAPIError(
                .badParameters, "Search is on for \(SearchSettings.maxClasses) classes already, the most an app may index.")
        }
    }

    /// Throws 102 when an expression is too large or too deep to run.
    package static func check(_ expression: SearchExpression) throws {
        var nodes = 0
        func visit(_ node: SearchExpression, depth: Int) throws {
            nodes += 1
            guard nodes <= maxNodes, depth <= maxDepth else {
                throw DataAPIError(
                    .invalidQuery, "The search query is too complex (at most \(maxNodes) terms, nested \(maxDepth) deep).")
            }
            switch node {
            case .text(let match):
                guard match.tokens.count <= maxTokens else {
                    throw DataAPIError(.invalidQuery, "A search phrase holds at most \(maxTokens) words.")
                }
            case .and(let parts), .or(let parts):
                for part in parts { try visit(part, depth: depth + 1) }
            case .not(let part):
                try visit(part, depth: depth + 1)
            case .condition, .everything:
                break
            }
        }
        try visit(expression, depth: 0)
    }
}
