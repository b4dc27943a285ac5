import DataAPI
import Foundation
import JSON

/// Where versions and environments live: the database (classes `_CloudCodeVersion` and
/// `_EngineEnvironment`, the master key's alone), so they survive restarts and every host on the
/// same database sees them. Always production's database, even when staging has its own.
struct DeployStore: Sendable {
    /// The service the records are written through (as the master key, without hooks).
    let data: DataService

    private static let versions = "_CloudCodeVersion"
    private static let environments = "_EngineEnvironment"
    /// Who the store writes as: the master key, without hooks (an app hook never sees these).
    static let caller = Caller.master.withoutHooks

    /// Every version, newest first.
    func allVersions() async throws -> [CloudCodeVersion] {
        try await records(Self.versions, where: nil).compactMap(Self.version).sorted { $0.number > $1.number }
    }

    /// One version; nil when there is none with that number.
    func version(_ number: Int) async throws -> CloudCodeVersion? {
        try await records(Self.versions, where: ["number": .int(Int64(number))]).first.flatMap(Self.version)
    }

    /// Stores a bundle as a new version, numbered one past the newest.
    ///
    /// The number is also the record's objectId, which the database keeps unique: two hosts
    /// deploying at the same moment can't both take a number; the one that loses takes the next.
    func add(_ draft: CloudCodeVersion) async throws -> CloudCodeVersion {
        var attempts = 0
        while true {
            attempts += 1
            let newest = try await records(Self.versions, where: nil, newestFirst: 1).first?.fields["number"]?.intValue
            var version = draft
            version.number = Int(newest ?? 0) + 1
            // Paths hold dots, which object keys may not: files are stored as a list of pairs.
            let files: [JSONValue] = draft.sortedFiles.map { ["path": .string($0.name), "source": .string($0.source)] }
            var body: [String: JSONValue] = [
                "number": .int(Int64(version.number)), "files": .array(files), "hash": .string(draft.hash),
                "message": .string(draft.message), "author": .string(draft.author), "ACL": [:],
            ]
            if let engine = draft.engine { body["engine"] = engine.record }
            do {
                let stored = try await data.create(Self.versions, body: body, objectId: "v\(version.number)", caller: Self.caller)
                version.createdAt = stored.createdAt
                return version
            } catch let error as DataAPIError where error.code == .duplicateValue && attempts < 10 {
                continue
            }
        }
    }

    /// An environment as stored, or a new one.
    func environment(_ name: EnvironmentName) async throws -> EnvironmentState {
        try await records(Self.environments, where: ["name": .string(name.rawValue)]).first.map(EnvironmentState.init(record:))
            ?? EnvironmentState(name: name)
    }

    /// Stores an environment.
    func save(_ environment: EnvironmentState) async throws -> EnvironmentState {
        var saved = environment
        if let id = environment.objectId {
            _ = try await data.update(Self.environments, id: id, body: environment.record, caller: Self.caller)
        } else {
            saved.objectId = try await data.create(Self.environments, body: environment.record, caller: Self.caller).objectId
        }
        return saved
    }

    /// Records of a class; with `newestFirst`, that many of the highest-numbered versions.
    func records(_ className: String, where condition: JSONValue?, newestFirst: Int? = nil) async throws -> [StoredObject] {
        // Production's database, whichever environment the request serves: deploys are the app's.
        let storage = data.engines.production
        guard try await storage.classExists(className) else { return [] }
        var query = ObjectQuery(className: className, limit: newestFirst ?? ObjectQuery.maxLimit)
        if newestFirst != nil { query.order = [SortKey(key: "number", descending: true)] }
        if let condition { query.predicate = try QueryPredicate(where: condition) }
        return try await storage.find(query)
    }

    private static func version(_ record: StoredObject) -> CloudCodeVersion? {
        guard let number = record.fields["number"]?.intValue else { return nil }
        var files: [String: String] = [:]
        for pair in record.fields["files"]?.arrayValue ?? [] {
            if let path = pair["path"]?.stringValue, let source = pair["source"]?.stringValue { files[path] = source }
        }
        return CloudCodeVersion(
            number: Int(number), files: files, hash: record.fields["hash"]?.stringValue ?? "",
            message: record.fields["message"]?.stringValue ?? "", author: record.fields["author"]?.stringValue ?? "",
            createdAt: record.createdAt, engine: CloudCodeVersion.Engine(record: record.fields["engine"]))
    }
}
