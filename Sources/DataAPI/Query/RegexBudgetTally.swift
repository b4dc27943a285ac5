import Synchronization

/// Counts the `$regex` evaluations a query's deadline (`RegexCache.queryDeadline`) cut short,
/// for whoever binds one around its evaluations (`current`): the LiveQuery hub around each
/// subscription's matching, so its metrics, and the tests, see the shared budget at work
/// rather than only its outcome. A pattern stopped by its own `matchBudget` first is not
/// counted: that bound holds with or without a query's.
public final class RegexBudgetTally: Sendable {
    private let count = Atomic<Int>(0)

    /// The tally the current task's regex evaluations are counted in; nil counts nothing.
    @TaskLocal package static var current: RegexBudgetTally?

    /// A tally at zero.
    public init() {}

    /// How many evaluations the query deadline cut short so far.
    public var cutShort: Int { count.load(ordering: .relaxed) }

    /// Counts one evaluation cut short.
    func record() {
        count.add(1, ordering: .relaxed)
    }
}
