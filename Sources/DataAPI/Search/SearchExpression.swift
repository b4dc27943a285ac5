/// A parsed search query (`q`): text matches and ordinary conditions joined by AND, OR and NOT.
///
/// Text is matched against the search index; everything else `q` can say (ranges, comparisons,
/// `_exists_`, `objectId`, dates) is a `QueryPredicate` on the object's own fields, so the
/// engines compile it as they compile a `find`'s condition and `Access` checks it as it checks
/// one (a hidden field can't be filtered by search either).
public indirect enum SearchExpression: Sendable, Hashable {
    /// Matches documents whose indexed text holds `match`.
    case text(SearchMatch)
    /// An ordinary condition on the object's fields.
    case condition(QueryPredicate)
    /// Every part matches.
    case and([SearchExpression])
    /// At least one part matches.
    case or([SearchExpression])
    /// The part doesn't match.
    case not(SearchExpression)
    /// Every document of the class (`q=*`).
    case everything
}

/// One text match: analyzed tokens that must occur next to each other, in one field or any.
///
/// Tokens come from `SearchAnalyzer` (the same analyzer the index was written with), so a
/// Chinese word is a run of overlapping character pairs and a phrase is its tokens in order.
public struct SearchMatch: Sendable, Hashable {
    /// The indexed field the match is limited to; nil for any indexed field.
    public var field: String?
    /// The positional tokens, adjacent and in this order (one for a single word).
    public var tokens: [String]
    /// Whether the last token is a prefix (`bro*`).
    public var isPrefix: Bool
    /// Whether the match is a single CJK character, looked up among the unigrams rather than
    /// the positional tokens (`tokens` then holds that one character).
    public var isUnigram: Bool

    /// Creates a match.
    public init(field: String? = nil, tokens: [String], isPrefix: Bool = false, isUnigram: Bool = false) {
        self.field = field
        self.tokens = tokens
        self.isPrefix = isPrefix
        self.isUnigram = isUnigram
    }
}
