package import Foundation
import JSON

/// How many messages (SMS codes, email links) may go out, per channel: from one client address
/// in a window, and from the whole app in a window. Past either, a request is refused with 601
/// (HTTP 429) before any code is issued, so a client can't pump messages to number after number.
package struct SendLimits: Sendable, Hashable {
    /// A number of messages per window.
    public struct Rate: Sendable, Hashable, CustomStringConvertible {
        /// The most messages in one window.
        public var count: Int
        /// The window, in seconds.
        public var period: TimeInterval

        /// `count` messages per `period` seconds.
        public init(count: Int, period: TimeInterval) {
            self.count = count
            self.period = period
        }

        /// Reads `N/unit` (`10/h`, `1000/d`, `5/m`, `30/s`); nil for anything else. `0` is
        /// read by the caller as "no limit".
        public init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let units: [String: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            guard parts.count == 2, let count = Int(parts[0]), count > 0, let period = units[parts[1]] else { return nil }
            self.init(count: count, period: period)
        }

        public var description: String {
            let units: [(TimeInterval, String)] = [(86_400, "d"), (3600, "h"), (60, "m")]
            let unit = units.first { period == $0.0 }
            return unit.map { "\(count)/\($0.1)" } ?? "\(count)/\(Int(period))s"
        }
    }

    /// Messages one client address may cause (nil: unlimited). Ten an hour lets a person ask
    /// again a few times on each of several flows; behind a carrier's NAT many people share an
    /// address, which is why the window is short and the knob is there.
    public var perClient: Rate? = Rate(count: 10, period: 3600)
    /// Messages the whole app may send (nil: unlimited): a ceiling on what an attack with many
    /// addresses costs (SMS are paid for) whatever else is bypassed.
    public var perApp: Rate? = Rate(count: 1000, period: 86_400)

    /// The defaults: 10 an hour per client, 1000 a day per app, for each channel.
    public init() {}

    /// The client an address is counted as: an IPv4 address as itself, an IPv6 address by its
    /// /64 network, which one subscriber usually holds whole (counted by the full address, a
    /// client would rotate through 2^64 of them).
    public static func client(ofAddress address: String) -> String {
        // An IPv4 address (most clients) is its own key: a byte test, before any parsing or allocation.
        guard address.utf8.contains(UInt8(ascii: ":")) else { return address }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        // An IPv4 address written as IPv6 (::ffff:a.b.c.d) is that IPv4 client.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}

/// Counts sends against `SendLimits` in the database (class `_MessageSend`, the master key's
/// only), so every host sharing it enforces one limit.
///
/// Each send inserts a row, then counts the rows of its window, its own included; more than the
/// limit and it deletes its row and is refused. A row is committed before its count runs, so the
/// k-th row to commit counts at least k: however many requests race, at most `count` are admitted
/// (a few may be refused that a lock would have let through; they may try again). No
/// transaction or lock is needed, on SQLite or PostgreSQL.
package struct SendCounter: Sendable {
    /// What `take` took: given back with `refund` when nothing was sent after all.
    public struct Ticket: Sendable {
        let ids: [String]
    }

    static let className = "_MessageSend"
    /// The class is the host's own: no client reads it and no hook sees it.
    static let caller = Caller.master.withoutHooks

    /// The service the rows are stored through.
    public let data: DataService
    /// The limits counted against.
    public let limits: SendLimits
    /// The clock windows are measured with.
    public let now: @Sendable () -> Date

    /// Creates a counter over a data service.
    public init(data: DataService, limits: SendLimits, now: @escaping @Sendable () -> Date = { Date() }) {
        self.data = data
        self.limits = limits
        self.now = now
    }

    /// Takes one `channel` message for `client` (an address) from the client's and the app's
    /// windows.
    ///
    /// - Throws: 601 (HTTP 429) when either window is full; nothing is taken then.
    public func take(_ channel: OutgoingMessage.Channel, client: String?) async throws -> Ticket {
        var taken: [String] = []
        do {
            if let rate = limits.perClient {
                let scope = "client \(channel.rawValue) \(client.map(SendLimits.client(ofAddress:)) ?? "unknown")"
                taken.append(try await take(scope: scope, rate: rate, refusal: "Too many \(channel.rawValue) messages from this address"))
            }
            if let rate = limits.perApp {
                taken.append(try await take(scope: "app \(channel.rawValue)", rate: rate, refusal: "Too many \(channel.rawValue) messages from this app"))
            }
        } catch {
            await refund(Ticket(ids: taken))
            throw error
        }
        let longest = max(limits.perClient?.period ?? 0, limits.perApp?.period ?? 0)
        try await dropExpired(before: now().timeIntervalSince1970 - longest)
        return Ticket(ids: taken)
    }

    /// Gives back what `take` took (the request failed before anything was sent).
    public func refund(_ ticket: Ticket) async {
        for id in ticket.ids { try? await data.delete(Self.className, id: id, caller: Self.caller) }
    }

    private func take(scope: String, rate: SendLimits.Rate, refusal: String) async throws -> String {
        let time = now().timeIntervalSince1970
        let start = time - rate.period
        let row = try await data.create(
            Self.className, body: ["scope": .string(scope), "sentAt": .double(time), "ACL": [:]], caller: Self.caller)
        let inWindow = try QueryPredicate(where: ["scope": .string(scope), "sentAt": ["$gt": .double(start)]])
        let count = try await data.engines.production.count(ObjectQuery(className: Self.className, predicate: inWindow, limit: 0))
        guard count <= rate.count else {
            try? await data.delete(Self.className, id: row.objectId, caller: Self.caller)
            throw DataAPIError(.codeRequestedTooOften, "\(refusal) (at most \(rate)): try again later.")
        }
        return row.objectId
    }

    /// Rows older than every window count for nothing any more, whoever sent them; a few go with
    /// each send (which adds at most two), so the class stays about the size of its windows.
    private func dropExpired(before start: TimeInterval) async throws {
        let old = try QueryPredicate(where: ["sentAt": ["$lte": .double(start)]])
        for row in try await data.engines.production.find(ObjectQuery(className: Self.className, predicate: old, limit: 20)) {
            try? await data.delete(Self.className, id: row.objectId, caller: Self.caller)
        }
    }
}
