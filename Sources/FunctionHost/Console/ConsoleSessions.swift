import Crypto
import DataAPI
import Foundation
import JSON

/// The console's sessions, kept in the database (`_ConsoleSession`, a host-only class no data
/// request reaches, not even with the master key) so that every host on one database knows them,
/// and a restart logs nobody out. A record's id is an HMAC-SHA256 of the session id keyed by the
/// master key: what the database holds can't be replayed as a cookie, and a new master key ends
/// every session opened with the old one (the operator's way to log every console out).
struct ConsoleSessions: Sendable {
    /// The service records are written through, as the host, without hooks.
    let data: DataService
    /// Lifetimes.
    let options: ConsoleOptions
    /// The key sessions are opened with and bound to (its bytes: `SymmetricKey` isn't `Sendable`).
    private let secret: [UInt8]
    /// The host's clock.
    let now: @Sendable () -> Date

    /// The sessions of a host whose master key is `masterKey`.
    init(data: DataService, options: ConsoleOptions, masterKey: String, now: @escaping @Sendable () -> Date) {
        self.data = data
        self.options = options
        secret = Self.secret(masterKey: masterKey)
        self.now = now
    }

    /// The key record ids are made with: the master key's, for this use alone.
    private static func secret(masterKey: String) -> [UInt8] {
        Array(SHA256.hash(data: Array("functionhost console session\u{0}\(masterKey)".utf8)))
    }

    static let className = "_ConsoleSession"
    private static let caller = Caller.master.withoutHooks
    /// A session is touched (its idle limit pushed back) at most this often: not a write per request.
    static let touchInterval: TimeInterval = 60

    /// A new session: its id (for the cookie) and its record.
    func open() async throws -> (id: String, session: ConsoleSession) {
        let id = ObjectID.randomHex(byteCount: 32)
        let time = now().timeIntervalSince1970
        let session = ConsoleSession(key: key(of: id), csrfToken: ObjectID.randomHex(byteCount: 32), created: time, lastSeen: time)
        try await removeExpired()
        let body: [String: JSONValue] = [
            "csrfToken": .string(session.csrfToken), "created": .double(session.created), "lastSeen": .double(session.lastSeen),
            "expiresAt": .double(session.expiry(options)), "ACL": [:],
        ]
        _ = try await data.create(Self.className, body: body, objectId: session.key, caller: Self.caller)
        return (id, session)
    }

    /// The live session a cookie's id names, its idle limit pushed back; nil for an id of the
    /// wrong form, an unknown one, or one past either limit (whose record is then removed).
    func session(id: String) async throws -> ConsoleSession? {
        guard Self.isWellFormed(id) else { return nil }
        let storage = data.engines.production
        let key = key(of: id)
        guard try await storage.classExists(Self.className), let record = try await storage.fetch(Self.className, id: key),
            let csrf = record.fields["csrfToken"]?.stringValue, let created = record.fields["created"]?.doubleValue,
            let lastSeen = record.fields["lastSeen"]?.doubleValue
        else { return nil }
        var session = ConsoleSession(key: key, csrfToken: csrf, created: created, lastSeen: lastSeen)
        let time = now().timeIntervalSince1970
        guard time < session.expiry(options) else {
            try? await data.delete(Self.className, id: key, caller: Self.caller)
            return nil
        }
        if time - lastSeen >= Self.touchInterval {
            session.lastSeen = time
            _ = try? await data.update(
                Self.className, id: key, body: ["lastSeen": .double(time), "expiresAt": .double(session.expiry(options))],
                caller: Self.caller)
        }
        return session
    }

    /// Ends a session (logout).
    func close(_ session: ConsoleSession) async throws {
        do {
            try await data.delete(Self.className, id: session.key, caller: Self.caller)
        } catch let error as DataAPIError where error.code == .objectNotFound {
            // Ended already (another tab logged out): the same outcome.
        }
    }

    /// Removes the sessions past their limits, as a login opens another: the table holds only
    /// the live ones and those that ended since the last login.
    private func removeExpired() async throws {
        let storage = data.engines.production
        guard try await storage.classExists(Self.className) else { return }
        var query = ObjectQuery(className: Self.className, limit: 1000)
        query.predicate = try QueryPredicate(where: ["expiresAt": ["$lte": .double(now().timeIntervalSince1970)]])
        let ids = try await storage.find(query).map(\.objectId)
        if !ids.isEmpty { _ = try await storage.delete(Self.className, ids: ids, condition: nil) }
    }

    /// A session id is 64 lowercase hex digits; anything else is refused before the database is asked.
    static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// The record id of a session id.
    func key(of id: String) -> String {
        Self.key(of: id, secret: secret)
    }

    /// The record id of a session id opened under `masterKey`.
    static func key(of id: String, masterKey: String) -> String {
        key(of: id, secret: secret(masterKey: masterKey))
    }

    private static func key(of id: String, secret: [UInt8]) -> String {
        HMAC<SHA256>.authenticationCode(for: Array(id.utf8), using: SymmetricKey(data: secret)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
