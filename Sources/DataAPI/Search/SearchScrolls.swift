import Foundation
import JSON

/// The scroll snapshots of search paging (`sid`), kept in the internal class `_SearchScroll` so
/// every host on one database continues another's scroll.
///
/// A scroll holds the ordered results of a search's first page (at most `SearchScrolls.window`
/// of them, as `Class/objectId` entries) and how far the pages have come. It is bound to the
/// caller who made it (user or none, master key or not, environment) and to the request (class,
/// `q`, order): anyone else's `sid` is answered as an unknown one. It lives 5 minutes from its
/// last use (LeanCloud's documented lifetime); a caller keeps at most `maxPerCaller` (the
/// oldest go first), and expired ones are swept as new ones are made.
struct SearchScrolls {
    /// The internal class scrolls live in.
    static let className = "_SearchScroll"
    /// How long a scroll lives after its last use, in seconds.
    static let lifetime: Double = 5 * 60
    /// The most scrolls one caller keeps.
    static let maxPerCaller = 50
    /// The most results one search pages through (its first page's engine call asks for these).
    static let window = 10_000
    /// How many expired scrolls one new scroll sweeps.
    static let sweepBatch = 20

    /// What an unknown, expired or someone else's `sid` is answered.
    static let unknown = DataAPIError(.badParameters, "Unknown or expired sid: search again without it.")

    /// One scroll as stored.
    struct Scroll {
        var objectId: String
        var entries: [String]
        var position: Int
        var hits: Int
    }

    /// The engine of the caller's data (scrolls live with the data they page).
    let storage: any StorageEngine
    /// Who the scrolls made here belong to.
    let owner: String
    /// Seconds since 1970, now.
    let now: Double

    init(storage: any StorageEngine, caller: Caller, now: Double = Date().timeIntervalSince1970) {
        self.storage = storage
        self.owner = "\(caller.environment.rawValue)|\(caller.isMaster ? "master" : "client")|\(caller.userId ?? "")"
        self.now = now
    }

    /// The live scroll `sid` names, made by this owner for this request.
    ///
    /// - Throws: `unknown` for any other (a wrong request is refused the same way, 102).
    func open(_ sid: String, request: String) async throws -> Scroll {
        guard sid.utf8.count == 32, sid.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7a).contains($0) }) else {
            throw Self.unknown
        }
        guard try await storage.classExists(Self.className) else { throw Self.unknown }
        let condition = try QueryPredicate(where: [
            "sid": .string(sid), "owner": .string(owner), "expiresAt": ["$gt": .double(now)],
        ])
        guard let row = try await storage.find(ObjectQuery(className: Self.className, predicate: condition, limit: 1)).first else {
            throw Self.unknown
        }
        guard row.fields["request"]?.stringValue == request else {
            throw DataAPIError(.invalidQuery, "This sid pages another search: send the same q, clazz and order as its first page.")
        }
        let entries = row.fields["entries"]?.stringValue.map { $0.split(separator: ",").map(String.init) } ?? []
        return Scroll(
            objectId: row.objectId, entries: entries, position: Int(row.fields["position"]?.intValue ?? 0),
            hits: Int(row.fields["hits"]?.intValue ?? 0))
    }

    /// Keeps a new scroll standing at `position` of `entries`; answers its sid.
    func create(request: String, entries: [String], position: Int, hits: Int) async throws -> String {
        try await sweep()
        let sid = Self.randomSID()
        var changes = ObjectChanges()
        changes.fields = [
            "sid": .set(.string(sid)), "owner": .set(.string(owner)), "request": .set(.string(request)),
            "entries": .set(.string(entries.joined(separator: ","))), "position": .set(.int(Int64(position))),
            "hits": .set(.int(Int64(hits))), "expiresAt": .set(.double(now + Self.lifetime)), "ACL": .set([:]),
        ]
        _ = try await storage.create(Self.className, changes: changes)
        return sid
    }

    /// Moves a scroll to `position` and renews its lifetime; a scroll at its end is dropped.
    ///
    /// - Throws: `unknown` when another request moved it meanwhile (each page is served once).
    func advance(_ scroll: Scroll, to position: Int) async throws {
        let stillThere = try QueryPredicate(where: ["position": .int(Int64(scroll.position))])
        do {
            if position >= scroll.entries.count {
                try await storage.delete(Self.className, id: scroll.objectId, condition: stillThere)
                return
            }
            var changes = ObjectChanges()
            changes.fields = ["position": .set(.int(Int64(position))), "expiresAt": .set(.double(now + Self.lifetime))]
            _ = try await storage.update(Self.className, id: scroll.objectId, changes: changes, condition: stillThere)
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            throw Self.unknown
        }
    }

    /// Drops a few expired scrolls, and this owner's oldest past `maxPerCaller - 1`.
    private func sweep() async throws {
        guard try await storage.classExists(Self.className) else { return }
        let expired = try QueryPredicate(where: ["expiresAt": ["$lte": .double(now)]])
        let old = try await storage.find(ObjectQuery(className: Self.className, predicate: expired, limit: Self.sweepBatch))
        let mine = try QueryPredicate(where: ["owner": .string(owner), "expiresAt": ["$gt": .double(now)]])
        let ownedQuery = ObjectQuery(
            className: Self.className, predicate: mine, order: [SortKey(key: "expiresAt", descending: true)],
            limit: Self.maxPerCaller + Self.sweepBatch)
        let owned = try await storage.find(ownedQuery)
        let surplus = owned.dropFirst(Self.maxPerCaller - 1)
        let ids = (old + surplus).map(\.objectId)
        if !ids.isEmpty { _ = try await storage.delete(Self.className, ids: ids, condition: nil) }
    }

    private static func randomSID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}
