import Synchronization

/// The change feed of one host on its own (SQLite): every change published here is handed to
/// every stream taken from it, in the order published.
public final class LocalChangeFeed: ChangeFeed {
    private let streams = Mutex<[Int: AsyncStream<CommittedChange>.Continuation]>([:])
    private let nextStream = Atomic<Int>(0)

    /// Creates a feed with no streams.
    public init() {}

    /// Hands the change to every open stream.
    public func publish(_ change: CommittedChange) async {
        // Yielding under the lock keeps one publisher's changes in order on every stream even
        // when two publish at once.
        streams.withLock { streams in
            for continuation in streams.values { continuation.yield(change) }
        }
    }

    /// A stream of every change published from now on.
    public func changes() -> AsyncStream<CommittedChange> {
        let id = nextStream.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: CommittedChange.self)
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.removeValue(forKey: id) }
        }
        streams.withLock { $0[id] = continuation }
        return stream
    }

    /// No other host follows this feed: only this host's own subscriptions ask for writes.
    public func announces(_ className: String) -> Bool { false }

    /// Ends every stream.
    public func finish() {
        let open = streams.withLock { streams in
            defer { streams.removeAll() }
            return Array(streams.values)
        }
        for continuation in open { continuation.finish() }
    }
}
