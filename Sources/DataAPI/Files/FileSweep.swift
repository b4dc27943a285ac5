package import Foundation
import JSON

/// Finds the stored content no `_File` names (`functionhost files sweep`): what a crash between
/// a `_File`'s deletion and its bytes' left behind, or an upload whose object was never written.
/// A key a `_File` of any environment names, or a pending upload token promises, is never
/// counted, nor content younger than `minimumAge` (an upload writes its bytes before its
/// `_File`, so young bytes may be named a moment later).
package struct FileSweep: Sendable {
    /// The store swept.
    public let store: any FileContentStore
    /// The databases whose `_File` objects name keys: production's, and staging's own if it has one.
    public let databases: [any StorageEngine]
    /// How old content must be to be counted.
    public var minimumAge: Duration = .seconds(3600)

    /// Keys looked up at a time.
    static let pageSize = 200

    /// A sweep of `store` against `databases`.
    public init(store: any FileContentStore, databases: [any StorageEngine]) {
        self.store = store
        self.databases = databases
    }

    /// What a sweep found.
    public struct Report: Sendable, Equatable {
        /// Keys stored in all.
        public var stored = 0
        /// Content no `_File` names, old enough to count.
        public var orphans: [StoredKey] = []
        /// How many of them were removed (with `deleting`).
        public var deleted = 0
        /// Content no `_File` names yet, too young to count.
        public var young = 0
    }

    /// Walks the whole store; with `deleting`, removes each orphan as it is found.
    public func run(deleting: Bool, now: Date = Date()) async throws -> Report {
        try await checkDatabases()
        var report = Report()
        let cutoff = now.addingTimeInterval(-Double(minimumAge.components.seconds))
        var cursor: String?
        while true {
            let page = try await store.listKeys(after: cursor, limit: Self.pageSize)
            guard let last = page.last else { break }
            cursor = last.key
            report.stored += page.count
            let named = try await namedKeys(page.map(\.key))
            for entry in page where !named.contains(entry.key) {
                guard entry.modified <= cutoff else {
                    report.young += 1
                    continue
                }
                report.orphans.append(entry)
                if deleting {
                    try await store.delete(key: entry.key)
                    report.deleted += 1
                }
            }
        }
        return report
    }

    /// Which of `keys` a `_File` names, or an upload token not yet redeemed promises.
    ///
    /// Several objects may name one key (the master key writes `_File` objects through
    /// `/classes` too): a page of answers can be all one key's. So each query asks only for the
    /// keys not found yet, until one answers fewer than it could: every full page finds at least
    /// one more key, and no key named is ever missed.
    private func namedKeys(_ keys: [String]) async throws -> Set<String> {
        var named = Set<String>()
        for database in databases {
            for className in ["_File", FileUploadTokens.className] where try await database.classExists(className) {
                while true {
                    let left = keys.filter { !named.contains($0) }
                    guard !left.isEmpty else { return named }
                    var query = ObjectQuery(className: className, limit: Self.pageSize)
                    query.predicate = try QueryPredicate(where: ["key": ["$in": .array(left.map(JSONValue.string))]])
                    let found = try await database.find(query)
                    for object in found {
                        if let key = object.fields["key"]?.stringValue { named.insert(key) }
                    }
                    if found.count < Self.pageSize { break }
                }
            }
        }
        return named
    }

    /// Throws unless some database has `_File` objects to name keys: a sweep against the wrong
    /// database (an empty one, a data directory mistyped) would take every stored file for an
    /// orphan.
    public func checkDatabases() async throws {
        for database in databases where try await database.classExists("_File") {
            let query = ObjectQuery(className: "_File", limit: 1)
            if try await !database.find(query).isEmpty { return }
        }
        throw DataAPIError(.badParameters, "No _File object in the database swept against: is it the host's? Nothing was listed or removed.")
    }
}
