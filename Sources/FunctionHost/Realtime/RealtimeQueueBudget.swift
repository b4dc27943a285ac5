import Synchronization

/// The bytes of events queued for each client across all its realtime connections, shared by
/// every connection of one server. A connection's own bound (`RealtimeLimits.maxQueuedBytes`)
/// times the connections one client may hold (`ConnectionLimits.perAddress`) would let one
/// client make the server hold 256 MiB by default; this caps the sum
/// (`RealtimeLimits.maxQueuedBytesPerAddress`). A client is counted as the connection gate
/// counts it: an IPv4 address, or an IPv6 /64.
final class RealtimeQueueBudget: Sendable {
    /// One client's share: what its connections' outboxes take from and give back to.
    struct Share: Sendable {
        let budget: RealtimeQueueBudget
        let key: String

        /// Takes `bytes` from the client's budget: false (nothing taken) when they don't fit,
        /// unless `always` (the connection's own queue is empty: it is no slow consumer, and a
        /// slow neighbour must not starve it). Taken either way, so the sum stays exact.
        func take(_ bytes: Int, always: Bool) -> Bool {
            budget.take(bytes, key: key, always: always)
        }

        /// Gives back bytes taken: written, skipped, or left when the connection ended.
        func give(_ bytes: Int) {
            budget.give(bytes, key: key)
        }
    }

    private let queued = Mutex<[String: Int]>([:])
    /// The most bytes one client's connections may hold queued together.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The share of the client at `address` (the upgrade's client, as `ClientAddress` resolves
    /// it); nil without an address (nothing to count it under).
    func share(forClient address: String?) -> Share? {
        address.map { Share(budget: self, key: ConnectionCounts.key(ofPeer: $0)) }
    }

    private func take(_ bytes: Int, key: String, always: Bool) -> Bool {
        queued.withLock { queued in
            let held = queued[key, default: 0]
            guard always || held + bytes <= limit else { return false }
            queued[key] = held + bytes
            return true
        }
    }

    private func give(_ bytes: Int, key: String) {
        guard bytes > 0 else { return }
        queued.withLock { queued in
            let held = queued[key, default: 0] - bytes
            // A client with nothing queued leaves the table, so it never grows with past clients.
            queued[key] = held > 0 ? held : nil
        }
    }

    /// The bytes queued for the client at `address` (for tests and metrics).
    func queuedBytes(forClient address: String) -> Int {
        queued.withLock { $0[ConnectionCounts.key(ofPeer: address), default: 0] }
    }
}
