import Synchronization

/// What a change feed has done since it opened, for the host's metrics.
public final class ChangeFeedStatistics: Sendable {
    private let counters = Mutex(Counts())

    /// The counts at one moment.
    public struct Counts: Sendable, Hashable {
        /// Changes this host wrote to the change table.
        public var published = 0
        /// Changes this host did not write because a later write of the same object had already
        /// committed (its own change carries the newer state).
        public var superseded = 0
        /// Changes this host could not write (the database refused or was unreachable).
        public var publishFailures = 0
        /// Changes read from the table and handed to this host's streams.
        public var received = 0
        /// Times the follower's connection was lost and made again.
        public var reconnects = 0
        /// Changes trimmed from the table before this host read them (at most: numbers of
        /// rolled-back publications count too).
        public var lost = 0
        /// Rows of the table that could not be read as a change (skipped).
        public var unreadable = 0
        /// How long the last change read had waited in the table, by the database's clock.
        public var lastLagMilliseconds = 0.0
    }

    init() {}

    /// The counts now.
    public var counts: Counts { counters.withLock { $0 } }

    func record(_ update: (inout Counts) -> Void) {
        counters.withLock { update(&$0) }
    }
}
