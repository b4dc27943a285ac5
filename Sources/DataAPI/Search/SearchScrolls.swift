import Foundation
import JSON

/// The scroll snapshots of search paging (`sid`), kept in the internal class `_SearchScroll` so
/// every host on one database continues another's scroll.
///
/// A scroll holds the ordered results of a search's first page (at most `SearchScrolls.window`
/// of them, as `Class/objectId` entries) and how far the pages have come. An object holds at
/// most 128 KB, so the entries are kept in chunks of rows: the head row (its objectId is the
/// sid) holds the first chunk, the binding, the position and the expiry; each further chunk is
/// a row of its own whose objectId is the sid and the chunk's number, read by id only when a
/// page reaches it. A scroll is bound to the caller who made it (user or none, master key or
/// not, environment) and to the request (class, `q`, order): anyone else's `sid` is answered as
/// an unknown one. It lives 5 minutes from its last use (LeanCloud's documented lifetime); a
/// caller keeps at most `maxPerCaller` (the oldest go first), and expired ones are swept as new
/// ones are made. Every delete removes a head with all its chunks in one transaction.
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
    /// The most entries one chunk row holds.
    static let chunkSize = 2_000
    /// The most bytes of JSON one chunk's entries take: with the head's own fields (a `q` of at
    /// most 4 096 bytes) a row stays well under the 128 KB an object may hold.
    static let maxChunkBytes = 96_000

    /// What an unknown, expired or someone else's `sid` is answered.
    static let unknown = DataAPIError(.badParameters, "Unknown or expired sid: search again without it.")

    /// One scroll as read from its head row.
    struct Scroll {
        var sid: String
        var position: Int
        var hits: Int
        /// Its entries, the first chunk read, the others read as pages reach them.
        var entries: SearchEntries
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
        // A sid is 32 letters and digits: never a chunk row's id, never anything to escape.
        guard sid.utf8.count == 32, sid.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7a).contains($0) }) else {
            throw Self.unknown
        }
        guard try await storage.classExists(Self.className), let head = try await storage.fetch(Self.className, id: sid),
            head.fields["owner"]?.stringValue == owner, let expiresAt = head.fields["expiresAt"]?.doubleValue, expiresAt > now,
            case .array(let starts)? = head.fields["starts"], let count = head.fields["count"]?.intValue
        else { throw Self.unknown }
        guard head.fields["request"]?.stringValue == request else {
            throw DataAPIError(.invalidQuery, "This sid pages another search: send the same q, clazz and order as its first page.")
        }
        let entries = SearchEntries(
            scrolls: self, sid: sid, className: head.fields["className"]?.stringValue ?? "",
            starts: starts.compactMap { $0.intValue.map(Int.init) }, count: Int(count), first: head.fields["ids"])
        return Scroll(
            sid: sid, position: Int(head.fields["position"]?.intValue ?? 0), hits: Int(head.fields["hits"]?.intValue ?? 0),
            entries: entries)
    }

    /// Keeps a new scroll of `entries` (at most `window`) standing at `position`, and answers
    /// its sid. The head is written first and the chunks after it, so a failure midway leaves a
    /// head that expires and is swept with whatever chunks it has.
    func create(request: String, entries: [String], position: Int, hits: Int) async throws -> String {
        let entries = Array(entries.prefix(Self.window))
        // One class's entries are kept as bare ids.
        let classes = Set(entries.map { $0.prefix(while: { $0 != "/" }) })
        let className = classes.count == 1 ? String(classes.first!) : ""
        let stored = className.isEmpty ? entries : entries.map { String($0.dropFirst(className.utf8.count + 1)) }
        let chunks = Self.chunked(stored)
        var starts: [JSONValue] = []
        var start = 0
        for chunk in chunks {
            starts.append(.int(Int64(start)))
            start += chunk.count
        }
        try await sweep()
        let sid = Self.randomSID()
        var head = ObjectChanges()
        head.objectId = sid
        head.fields = [
            "owner": .set(.string(owner)), "request": .set(.string(request)), "className": .set(.string(className)),
            "ids": .set(.array(chunks[0].map { .string($0) })), "starts": .set(.array(starts)),
            "count": .set(.int(Int64(entries.count))), "position": .set(.int(Int64(position))),
            "hits": .set(.int(Int64(hits))), "expiresAt": .set(.double(now + Self.lifetime)), "ACL": .set([:]),
        ]
        _ = try await storage.create(Self.className, changes: head)
        for (index, chunk) in chunks.enumerated().dropFirst() {
            var row = ObjectChanges()
            row.objectId = Self.chunkID(sid, index)
            row.fields = ["ids": .set(.array(chunk.map { .string($0) })), "ACL": .set([:])]
            do {
                _ = try await storage.create(Self.className, changes: row)
            } catch {
                _ = try? await storage.delete(Self.className, ids: Self.rowIDs(sid, chunks: chunks.count), condition: nil)
                throw error
            }
        }
        return sid
    }

    /// The entries of chunk `index` of a scroll, as stored (bare ids for one class).
    ///
    /// - Throws: `unknown` when the scroll was ended or swept meanwhile.
    func chunk(_ sid: String, _ index: Int) async throws -> JSONValue {
        guard let row = try await storage.fetch(Self.className, id: Self.chunkID(sid, index)), let ids = row.fields["ids"] else {
            throw Self.unknown
        }
        return ids
    }

    /// Moves a scroll to `position` and renews its lifetime; a scroll at its end is dropped
    /// with its chunks.
    ///
    /// - Throws: `unknown` when another request moved or ended it meanwhile (each page is
    ///   served once).
    func advance(_ scroll: Scroll, to position: Int) async throws {
        let stillThere = try QueryPredicate(where: ["position": .int(Int64(scroll.position))])
        do {
            if position >= scroll.entries.count {
                // Chunk rows have no position: the condition holds the head alone.
                let unmoved = QueryPredicate.or([stillThere, .exists(key: "position", false)])
                let ids = Self.rowIDs(scroll.sid, chunks: scroll.entries.chunkCount)
                guard try await storage.delete(Self.className, ids: ids, condition: unmoved).contains(scroll.sid) else {
                    throw Self.unknown
                }
                return
            }
            var changes = ObjectChanges()
            changes.fields = ["position": .set(.int(Int64(position))), "expiresAt": .set(.double(now + Self.lifetime))]
            _ = try await storage.update(Self.className, id: scroll.sid, changes: changes, condition: stillThere)
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            throw Self.unknown
        }
    }

    /// Drops a few expired scrolls, and this owner's oldest past `maxPerCaller - 1`, each with
    /// its chunks.
    private func sweep() async throws {
        guard try await storage.classExists(Self.className) else { return }
        let expired = try QueryPredicate(where: ["expiresAt": ["$lte": .double(now)]])
        let old = try await storage.find(ObjectQuery(className: Self.className, predicate: expired, limit: Self.sweepBatch))
        let mine = try QueryPredicate(where: ["owner": .string(owner), "expiresAt": ["$gt": .double(now)]])
        let ownedQuery = ObjectQuery(
            className: Self.className, predicate: mine, order: [SortKey(key: "expiresAt", descending: true)],
            limit: Self.maxPerCaller + Self.sweepBatch)
        let owned = try await storage.find(ownedQuery)
        let heads = old + owned.dropFirst(Self.maxPerCaller - 1)
        let ids = heads.flatMap { head in
            guard case .array(let starts)? = head.fields["starts"] else { return [head.objectId] }
            return Self.rowIDs(head.objectId, chunks: starts.count)
        }
        if !ids.isEmpty { _ = try await storage.delete(Self.className, ids: ids, condition: nil) }
    }

    /// `entries` in chunks of at most `chunkSize` entries and `maxChunkBytes` bytes of JSON
    /// (always at least one chunk, and at least one entry in each).
    static func chunked(_ entries: [String]) -> [[String]] {
        var chunks: [[String]] = [[]]
        var bytes = 0
        for entry in entries {
            let size = JSONValue.string(entry).jsonBytes.count + 1
            if !chunks[chunks.count - 1].isEmpty, chunks[chunks.count - 1].count == chunkSize || bytes + size > maxChunkBytes {
                chunks.append([])
                bytes = 0
            }
            chunks[chunks.count - 1].append(entry)
            bytes += size
        }
        return chunks
    }

    /// The id of chunk `index` (from 1) of the scroll `sid`: a sid never holds a `-`.
    static func chunkID(_ sid: String, _ index: Int) -> String { "\(sid)-\(index)" }

    /// The ids of a scroll's head and chunk rows, chunks first.
    static func rowIDs(_ sid: String, chunks: Int) -> [String] {
        (1..<max(1, chunks)).map { chunkID(sid, $0) } + [sid]
    }

    private static func randomSID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}
