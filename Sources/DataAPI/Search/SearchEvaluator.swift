import JSON

/// Decides in memory whether an object matches a search expression: the reference the engines'
/// indexes are tested against (a random corpus and random expressions must select the same
/// objects through FTS5, PostgreSQL text search and this), as `QueryEvaluator` is for finds.
///
/// It analyzes the object's indexed fields with `SearchAnalyzer`, as the engines do when they
/// index a write, and evaluates conditions with `QueryEvaluator`.
package struct SearchEvaluator: Sendable {
    /// The class's search settings (which fields are indexed).
    package var settings: SearchSettings
    /// Evaluates the expression's conditions.
    package var conditions: QueryEvaluator

    /// Creates an evaluator for a class's settings and recorded field types.
    package init(settings: SearchSettings, fields: [String: FieldType]) {
        self.settings = settings
        self.conditions = QueryEvaluator(fields: fields)
    }

    /// Whether `object` matches `expression`.
    package func matches(_ object: StoredObject, _ expression: SearchExpression) -> Bool {
        let analyzed = settings.fields.map { field in (field, SearchAnalyzer.analyze(object.fields[field] ?? .null)) }
        return matches(object, expression, analyzed)
    }

    /// The objects of `objects` that match, in objectId order: what an engine's ids must be as a
    /// set (engines order by relevance; the reference has none).
    package func matching(_ objects: [StoredObject], _ expression: SearchExpression) -> [String] {
        objects.filter { matches($0, expression) }.map(\.objectId).sorted()
    }

    private func matches(_ object: StoredObject, _ expression: SearchExpression, _ analyzed: [(String, AnalyzedText)]) -> Bool {
        switch expression {
        case .everything: true
        case .condition(let predicate): conditions.matches(object, predicate)
        case .and(let parts): parts.allSatisfy { matches(object, $0, analyzed) }
        case .or(let parts): parts.contains { matches(object, $0, analyzed) }
        case .not(let part): !matches(object, part, analyzed)
        case .text(let match):
            analyzed.contains { field, text in (match.field == nil || match.field == field) && Self.holds(text, match) }
        }
    }

    /// Whether one field's analyzed text holds a match: its tokens at consecutive positions (the
    /// last a prefix when asked), or its character among the unigrams.
    static func holds(_ text: AnalyzedText, _ match: SearchMatch) -> Bool {
        if match.isUnigram { return match.tokens.first.map(text.unigrams.contains) ?? false }
        let wanted = match.tokens
        guard !wanted.isEmpty, text.tokens.count >= wanted.count else { return false }
        for start in 0...(text.tokens.count - wanted.count) {
            let found = wanted.indices.allSatisfy { offset in
                let token = text.tokens[start + offset]
                let isLast = offset == wanted.count - 1
                return isLast && match.isPrefix ? token.hasPrefix(wanted[offset]) : token == wanted[offset]
            }
            if found { return true }
        }
        return false
    }
}
