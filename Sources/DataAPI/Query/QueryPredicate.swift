/// A `where` condition, parsed and checked, independent of any storage engine.
public indirect enum QueryPredicate: Sendable, Hashable {
    /// Every predicate holds (an empty list holds always).
    case and([QueryPredicate])
    /// At least one predicate holds (an empty list never holds).
    case or([QueryPredicate])
    /// A comparison of the value at `key` with a constant.
    case compare(key: String, ComparisonOperator, JSONValue)
    /// The value at `key` is (or, negated, is not) one of the constants.
    case oneOf(key: String, [JSONValue], negated: Bool)
    /// The field at `key` exists (or, with false, does not).
    case exists(key: String, Bool)
}

/// The comparisons a `where` clause can make.
public enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "$eq"
    case notEqual = "$ne"
    case less = "$lt"
    case lessOrEqual = "$lte"
    case greater = "$gt"
    case greaterOrEqual = "$gte"
}
