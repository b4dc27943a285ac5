package import Foundation
import Synchronization

/// A clock the test moves by hand: lockouts and expiries are measured without sleeping.
package final class TestClock: Sendable {
    private let seconds = Mutex<TimeInterval>(1_800_000_000)

    /// A clock at a fixed moment.
    package init() {}

    /// The clock's time.
    package var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }

    /// Moves the clock forward.
    package func advance(minutes: Double) { seconds.withLock { $0 += minutes * 60 } }
}
