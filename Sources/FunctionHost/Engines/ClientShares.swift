import Synchronization

/// How many requests each client has in flight, up to a limit.
final class ClientShares: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes one of `client`'s places; false when it holds `limit`.
    func admit(_ client: String) -> Bool {
        counts.withLock { counts in
            guard counts[client, default: 0] < limit else { return false }
            counts[client, default: 0] += 1
            return true
        }
    }

    /// Gives back a place `admit` took.
    func release(_ client: String) {
        counts.withLock { counts in
            counts[client, default: 1] -= 1
            if counts[client] == 0 { counts[client] = nil }
        }
    }
}
