public import DataAPI
public import JSON

/// One subscription: a query, the subscription id whose connections receive its events, and
/// who it acts as (the caller the subscribe request authenticated as, never anything its body
/// named).
struct Subscription: Sendable {
    /// The client's subscription id (`livequery-<uuid>`).
    let id: String
    /// The query's id within it, derived from the id and the query (`QueryID`).
    let queryID: String
    /// The query: class, condition, `keys`, `include`, `returnACL`.
    let query: ObjectQuery
    /// Who the subscription acts as.
    var caller: Caller
    /// Who it counts against (`address:<client>`, `user:<objectId>`, `app` for the app key
    /// with no user); none for the master key.
    var owners: [String] = []
    /// The client address that made it, as limits key it (an IPv6 client's /64); nil for a
    /// subscription made in-process. Only connections from it receive its events.
    var client: String? = nil

    /// The session token the subscription acts with; nil without a user. The subscription ends
    /// when the session does (the user's token changes, the user is deleted).
    var sessionToken: String? { caller.user?["sessionToken"]?.stringValue }

    /// Who made it, for replacing it: the master key, a user, or the app key alone.
    var principal: String { Self.principal(of: caller) }

    /// Who a caller is, as subscriptions compare it.
    static func principal(of caller: Caller) -> String {
        caller.isMaster ? "master" : caller.userId.map { "user:" + $0 } ?? "app"
    }
}

/// What a subscribe request is answered: `{"id", "query_id"}`.
public struct LiveQuerySubscription: Sendable, Hashable {
    /// The subscription id.
    public let id: String
    /// The query's id, which every event of it carries.
    public let queryID: String

    /// The answer's JSON.
    public var json: JSONValue {
        ["id": .string(id), "query_id": .string(queryID)]
    }
}

/// The id of a subscription's query: the same for the same subscription id and query, on every
/// host and across restarts, because the JavaScript and Objective-C SDKs subscribe again after
/// each reconnect and keep the `query_id` they had (they ignore the new answer's).
///
/// It is a name, not a secret (the subscription id is what a connection logs in with): FNV-1a
/// twice over the id and the query's canonical JSON (sorted keys), 128 bits in hex.
enum QueryID {
    /// The query id of `query` under `subscriptionID`.
    static func make(subscriptionID: String, query: ObjectQuery) -> String {
        var text = Array(subscriptionID.utf8)
        text.append(0)
        text += Array(query.className.utf8)
        text.append(0)
        text += JSONValue.object((try? query.parameters()) ?? [:]).jsonBytes
        return hex(fnv(text, basis: 0xcbf2_9ce4_8422_2325)) + hex(fnv(text, basis: 0x8422_2325_cbf2_9ce4))
    }

    private static func fnv(_ bytes: [UInt8], basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
