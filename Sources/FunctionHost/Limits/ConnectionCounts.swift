import DataAPI
import Synchronization

/// The connections open per client, shared by every connection of one server. A client is an
/// IPv4 address, or an IPv6 /64 network: one subscriber usually holds a whole /64, and counted
/// by the full address it would have 2^64 of them to spread its connections over.
final class ConnectionCounts: Sendable {
    private let open = Mutex<[String: Int]>([:])
    /// The most one client may hold.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The key a peer address is counted under: the same client key the message limits use.
    static func key(ofPeer address: String) -> String {
        SendLimits.client(ofAddress: address)
    }

    /// Counts a new connection from the peer `address`; false (nothing counted) past the limit.
    func admit(_ address: String) -> Bool {
        let key = Self.key(ofPeer: address)
        return open.withLock { open in
            let count = open[key, default: 0]
            guard count < limit else { return false }
            open[key] = count + 1
            return true
        }
    }

    /// Forgets a connection `admit` counted.
    func release(_ address: String) {
        let key = Self.key(ofPeer: address)
        open.withLock { open in
            let count = open[key, default: 1] - 1
            // A client with none open leaves the table, so it never grows with past peers.
            open[key] = count > 0 ? count : nil
        }
    }

    /// The connections open from the client of `address` (for tests and metrics).
    func count(_ address: String) -> Int { open.withLock { $0[Self.key(ofPeer: address), default: 0] } }
}
