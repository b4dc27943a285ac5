import LiveQuery
import RealtimeProtocol
import Synchronization

/// What one realtime connection has yet to write, in order: replies, pushes, and at most one
/// close. Bounded: pushes beyond `RealtimeLimits.maxQueuedEvents` or `maxQueuedBytes`, or past
/// what its client's connections may queue together (`RealtimeQueueBudget`), make the connection
/// a slow consumer, closed with 4120, and what was queued is skipped, so a client that stops
/// reading holds no more than the bounds.
final class RealtimeOutbox: Sendable {
    /// One thing to write.
    enum Item: Sendable {
        /// A reply (loggedin, echo, error...).
        case command(GenericCommand)
        /// The JSON dialect's keep-alive answer.
        case heartbeat
        /// Events for one subscription id, as one data command.
        case events(installationID: String, [LiveEvent], bytes: Int)
        /// The last frame: a close with this code.
        case close(RealtimeClose)
    }

    private struct State {
        var queuedEvents = 0
        var queuedBytes = 0
        var closing: RealtimeClose?
        var pushesWritten = 0
        /// The connection ended: nothing more is queued, and its bytes went back to the budget.
        var ended = false
    }

    private let state = Mutex(State())
    private let continuation: AsyncStream<Item>.Continuation
    private let limits: RealtimeLimits
    /// The client's share of the queued bytes, across its connections (nil: not counted).
    private let share: RealtimeQueueBudget.Share?
    /// Called once, with the close, when the server decides to close the connection.
    private let onClose: @Sendable (RealtimeClose) -> Void
    /// The items in order, for the connection's one writer.
    let items: AsyncStream<Item>

    init(limits: RealtimeLimits, share: RealtimeQueueBudget.Share? = nil, onClose: @escaping @Sendable (RealtimeClose) -> Void) {
        (items, continuation) = AsyncStream.makeStream(of: Item.self)
        self.limits = limits
        self.share = share
        self.onClose = onClose
    }

    /// The close decided, if any: once set, nothing more is queued and queued pushes are skipped.
    var closing: RealtimeClose? { state.withLock { $0.closing } }

    /// Queues a reply. Each counts as one queued event: a client that sends commands and never
    /// reads their answers fills its queue as a slow consumer does.
    func reply(_ item: Item) {
        let fits = state.withLock { state -> Bool? in
            guard state.closing == nil, !state.ended else { return nil }
            guard state.queuedEvents < limits.maxQueuedEvents else { return false }
            state.queuedEvents += 1
            return true
        }
        switch fits {
        case true?: continuation.yield(item)
        case false?: close(.slowConsumer)
        case nil: break
        }
    }

    /// Queues events; false (and the connection closes as a slow consumer) when they don't fit.
    func push(_ events: [LiveEvent], installationID: String) -> Bool {
        let bytes = events.reduce(0) { $0 + $1.json.utf8.count }
        let fits = state.withLock { state -> Bool? in
            guard state.closing == nil, !state.ended else { return nil }
            let empty = state.queuedEvents == 0
            guard empty || (state.queuedEvents + events.count <= limits.maxQueuedEvents && state.queuedBytes + bytes <= limits.maxQueuedBytes)
            else { return false }
            // Under this connection's lock, so its bytes and the client's sum move together.
            guard share?.take(bytes, always: empty) ?? true else { return false }
            state.queuedEvents += events.count
            state.queuedBytes += bytes
            return true
        }
        switch fits {
        case true?:
            continuation.yield(.events(installationID: installationID, events, bytes: bytes))
            return true
        case false?:
            close(.slowConsumer)
            return false
        case nil:
            return false
        }
    }

    /// The pushes (data commands) written so far: what a client may ack.
    var pushesWritten: Int { state.withLock { $0.pushesWritten } }

    /// The writer wrote a push.
    func wrotePush() {
        state.withLock { $0.pushesWritten += 1 }
    }

    /// The writer took a push (or a reply: one event, no bytes) off the queue.
    func delivered(events: Int, bytes: Int) {
        state.withLock { state in
            guard !state.ended else { return }
            state.queuedEvents -= events
            state.queuedBytes -= bytes
            share?.give(bytes)
        }
    }

    /// The connection's writer is done: what it left queued goes back to the client's budget,
    /// and nothing more is queued.
    func release() {
        continuation.finish()
        state.withLock { state in
            guard !state.ended else { return }
            state.ended = true
            share?.give(state.queuedBytes)
            state.queuedEvents = 0
            state.queuedBytes = 0
        }
    }

    /// Decides to close: the close frame is the last item written. The first close wins.
    func close(_ close: RealtimeClose) {
        let first = state.withLock { state -> Bool in
            guard state.closing == nil else { return false }
            state.closing = close
            return true
        }
        guard first else { return }
        continuation.yield(.close(close))
        continuation.finish()
        onClose(close)
    }

    /// Ends the queue without a close frame of the server's (the client closed, or left).
    func finish() {
        continuation.finish()
    }
}

/// One login of a connection: where the subscriptions of its subscription id push events.
final class RealtimeLogin: LiveQuerySink {
    /// The subscription id the connection logged in with.
    let installationID: String
    /// The connection's client address: it receives the events of the subscriptions made from it.
    let client: String?
    private let outbox: RealtimeOutbox

    init(installationID: String, outbox: RealtimeOutbox, client: String?) {
        self.installationID = installationID
        self.outbox = outbox
        self.client = client
    }

    /// Queues the events as one data command; false when the connection is full (it closes).
    func push(_ events: [LiveEvent]) -> Bool {
        guard !events.isEmpty else { return outbox.closing == nil }
        return outbox.push(events, installationID: installationID)
    }

    func eventsLost() {
        outbox.close(.eventsLost)
    }
}
