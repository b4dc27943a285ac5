import Synchronization

/// Values reported from inside the server during a test.
package final class Recorded<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    /// Nothing recorded yet.
    package init() {}

    /// Adds a value.
    package func record(_ value: Value) { values.withLock { $0.append(value) } }

    /// The values so far, in order.
    package var all: [Value] { values.withLock { $0 } }
}
