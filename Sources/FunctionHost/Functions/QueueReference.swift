import CloudQueue
import Synchronization

/// The host's Cloud Queue as the functions' calls reach it (`request.queue`,
/// `AV.Cloud.enqueue`), set once the queue is made: the queue is made after the invoker, since
/// it runs its tasks through it, so the invoker holds this reference rather than the queue.
final class QueueReference: Sendable {
    private let queue = Mutex<CloudQueue?>(nil)

    /// An empty reference: calls made before it is set (none, at start) find no queue (108).
    init() {}

    /// The queue, once set.
    var value: CloudQueue? { queue.withLock { $0 } }

    /// Sets the queue every copy of the invoker then reaches.
    func set(_ queue: CloudQueue) { self.queue.withLock { $0 = queue } }
}
