import ArgumentParser
import DataAPI
import Foundation
import JSON
import NIOHTTP1

/// `import --from-server`: reads a live app's classes through its REST API (master key) and hands
/// them to the importer: the class list from `GET /1.1/schemas`, each class a page at a time
/// through the Scan API, and the members of each Relation an object holds through `$relatedTo`
/// queries (one owner at a time, as the API allows), and each class's permissions and field flags.
///
/// The REST API never returns users' password hashes, so users pulled this way sign in again
/// after a password reset; the console export carries the hashes (the summary says so).
struct ServerPull: Sendable {
    let client: EngineClient
    /// The classes asked for; nil pulls every class `/schemas` lists.
    let only: [String]?

    /// Objects a scan page asks for: the Scan API's maximum.
    static let pageSize = 1000

    /// Resolves the server and credentials (with the LeanEngine variables as fallbacks).
    init(server: String, appId: String?, masterKey: String?, classes: String?) throws {
        let environment = ProcessInfo.processInfo.environment
        var server = server
        while server.hasSuffix("/") { server.removeLast() }
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--from-server needs an http(s) URL such as https://api.example.com, not '\(server)'.")
        }
        guard let appId = [appId, environment["LEANCLOUD_APP_ID"]].compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
            throw ValidationError("--from-server needs --app-id (or LEANCLOUD_APP_ID).")
        }
        guard
            let masterKey = [masterKey, environment["LEANCLOUD_APP_MASTER_KEY"]].compactMap({ $0 })
                .first(where: { !$0.isEmpty })
        else {
            throw ValidationError("--from-server needs --master-key (or LEANCLOUD_APP_MASTER_KEY): the Scan API needs it.")
        }
        client = EngineClient(server: server, appId: appId, masterKey: masterKey)
        only = classes.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        if let only, let bad = only.first(where: { !Names.isValidClassName($0) }) {
            throw ValidationError("'\(bad)' is not a class name.")
        }
    }

    /// Pulls every class (or those asked for) into `importer`.
    func run(into importer: inout ExportImporter) async throws {
        let schemas = try await get("/1.1/schemas", [:])
        guard case .object(var classes) = schemas else {
            throw ClientFailure(message: "\(client.server)/1.1/schemas did not answer with a JSON object")
        }
        if case .object(let results)? = classes["results"] { classes = results }
        // Earlier FunctionHost versions listed their deploy classes too; they are the source host's
        // own (its versions and secrets), never data to move, and its scan refuses them now.
        var names = classes.keys.filter { Names.isValidClassName($0) && !Names.deployClasses.contains($0) }.sorted()
        if let only {
            names = only
        }
        var withoutPermissions: [String] = []
        for name in names {
            // The class and its fields' types first, as the source lists them: a class without
            // objects comes over too, typed (the host's own classes are this host's to make).
            if case .object(let descriptors)? = classes[name], !Names.internalClasses.contains(name) {
                try await importer.declareClass(name, descriptors: descriptors)
            }
            let relations = try await scan(name, into: &importer)
            for (field, relation) in relations.sorted(by: { $0.key < $1.key }) {
                for owner in relation.owners {
                    try await pullMembers(
                        of: owner, className: name, field: field, target: relation.target, into: &importer)
                }
            }
            let permissionsCame = try await pullSettings(of: name, descriptors: classes[name], into: &importer)
            if !permissionsCame { withoutPermissions.append(name) }
        }
        if !withoutPermissions.isEmpty {
            importer.note(
                "\(withoutPermissions.joined(separator: ", ")): class permissions not pulled (the source does not answer /1.1/schemas/<Class>/permissions): set them with functionhost schema permit, or import the console's schema export."
            )
        }
        if names.contains("_User") {
            importer.note(
                "_User: the REST API does not give password hashes; these users sign in again after a password reset (the console export carries the hashes: import it instead to keep them)."
            )
        }
    }

    /// The objects of a class that hold a Relation field, and the class it relates to.
    struct RelationOwners {
        var target: String
        var owners: [String] = []
    }

    /// Imports one class page by page; returns its Relation fields with the objects that hold
    /// them (an object carries `{"__type": "Relation", "className": ...}` in each).
    private func scan(_ className: String, into importer: inout ExportImporter) async throws -> [String: RelationOwners] {
        var cursor: String?
        var relations: [String: RelationOwners] = [:]
        var page = 0
        repeat {
            var parameters = ["limit": String(Self.pageSize)]
            if let cursor { parameters["cursor"] = cursor }
            let answer = try await get("/1.1/scan/classes/\(className)", parameters)
            guard case .array(let results)? = answer["results"] else {
                throw ClientFailure(message: "the scan of \(className) answered without results")
            }
            page += 1
            for object in results {
                guard case .object(let fields) = object, case .string(let id)? = fields["objectId"] else { continue }
                for (field, value) in fields where value.typeTag == "Relation" {
                    guard case .string(let target)? = value["className"], Names.isValidClassName(target) else { continue }
                    relations[field, default: RelationOwners(target: target)].owners.append(id)
                }
            }
            try await importer.importObjects(results, className: className, origin: "\(className) (scan page \(page))")
            cursor = answer["cursor"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        } while cursor != nil
        return relations
    }

    /// Applies a class's permissions and field flags as the source has them: its settings
    /// document where it answers `GET /1.1/schemas/{Class}/permissions` (FunctionHost does), else
    /// only the flags its `/schemas` field descriptors carry. Returns whether the permissions came.
    private func pullSettings(
        of className: String, descriptors: JSONValue?, into importer: inout ExportImporter
    ) async throws -> Bool {
        // The host's own classes have no settings of their own (a FunctionHost source lists them).
        guard !Names.internalClasses.contains(className) else { return true }
        let document: JSONValue
        do {
            document = try await get("/1.1/schemas/\(className)/permissions", [:])
        } catch is ClientFailure {
            if let descriptors {
                try await importer.importSettings(["schema": descriptors], className: className, origin: "\(className) (schema)")
            }
            return false
        }
        try await importer.importSettings(document, className: className, origin: "\(className) (permissions)")
        return true
    }

    /// Imports the members of one owner's Relation field, in objectId order, a page at a time.
    private func pullMembers(
        of owner: String, className: String, field: String, target: String, into importer: inout ExportImporter
    ) async throws {
        var after: String?
        while true {
            var condition: [String: JSONValue] = [
                "$relatedTo": [
                    "object": ["__type": "Pointer", "className": .string(className), "objectId": .string(owner)],
                    "key": .string(field),
                ]
            ]
            if let after { condition["objectId"] = ["$gt": .string(after)] }
            let answer = try await get(
                "/1.1/classes/\(target)",
                ["where": JSONValue.object(condition).jsonString, "keys": "objectId", "order": "objectId",
                 "limit": String(Self.pageSize)])
            let ids = answer["results"]?.arrayValue?.compactMap { $0["objectId"]?.stringValue } ?? []
            if !ids.isEmpty {
                try await importer.importRelation(
                    ownerClass: className, field: field, members: ids.map { (owner: owner, target: $0) })
            }
            guard ids.count == Self.pageSize else { return }
            after = ids.last
        }
    }

    /// A master-key GET, parsed.
    private func get(_ path: String, _ parameters: [String: String]) async throws -> JSONValue {
        var components = URLComponents()
        components.queryItems = parameters.sorted(by: { $0.key < $1.key }).map { URLQueryItem(name: $0.key, value: $0.value) }
        // URLComponents leaves `+` alone, which servers read as a space.
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        let answer = try await client.send(.GET, query.isEmpty ? path : path + "?" + query)
        do {
            return try JSONValue(parsing: Array(answer.body))
        } catch {
            throw ClientFailure(message: "\(client.server)\(path) answered with malformed JSON")
        }
    }
}
