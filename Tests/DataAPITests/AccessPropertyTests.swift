import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// What a non-master caller learns from a query — its results, its count, whether a conditional
/// update matched — must be exactly what the same query answers, with the master key, over a
/// database holding only the objects that caller may read, without their hidden fields. Any
/// difference is a leak (or a wrongly hidden object). A query naming a hidden field anywhere is
/// refused (119) instead.
///
/// Objects, ACLs, users, roles and queries are generated from a seed (SplitMix64), so a failure
/// names its seed, round, caller and query, and reproduces. The engine is SQLite, or PostgreSQL
/// when `FUNCTIONHOST_TEST_DATABASE_URL` names a server.
@Suite struct AccessPropertyTests {
    typealias Generator = QueryPropertyTests.Generator

    /// A field's kind, which decides the constraints generated on it.
    enum Kind { case number, string, strings, pointer(String) }

    /// The fields queries name, per class, and those no client may name (a column set `hidden`;
    /// `_User`'s private and always-hidden fields).
    static let fields: [String: [(String, Kind)]] = [
        "A": [("n", .number), ("s", .string), ("tags", .strings), ("b", .pointer("B")), ("owner", .pointer("_User"))],
        "B": [("n", .number), ("s", .string), ("k", .string), ("a", .pointer("A")), ("owner", .pointer("_User"))],
        "_User": [("n", .number), ("username", .string)],
    ]
    static let hiddenFields: [String: [String]] = ["A": [], "B": ["secret"], "_User": ["email", "password", "sessionToken"]]
    /// Fields the copy for a caller leaves out: what its view of an object never holds.
    static let removedFields: [String: Set<String>] = [
        "B": ["secret"], "_User": ["password", "sessionToken", "salt", "_failedLogins"],
    ]
    static let strings: [JSONValue] = ["x", "y", "z", "xy"]
    static let userCount = 4

    /// The generated data: object ids by class, and who each user is.
    struct World {
        var ids: [String: [String]] = [:]
        var users: [String] { ids["_User"] ?? [] }
        /// Each user's identities as the role hierarchy gives them (worked out here, not asked
        /// of the server).
        var identities: [String: Set<String>] = [:]

        func pointers(to className: String) -> [JSONValue] {
            (ids[className] ?? []).map { ["__type": "Pointer", "className": .string(className), "objectId": .string($0)] }
        }
    }

    // MARK: Engines

    /// Fresh engines for one test: SQLite files in a directory of its own, or schemas of the
    /// PostgreSQL test server; all closed and removed by `close`.
    final class Engines: @unchecked Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fh-access-\(UUID().uuidString)")
        private var postgres: [PostgresStorage] = []

        func make() async throws -> any StorageEngine {
            if let location = TestDatabase.server {
                let schema = "a_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
                let storage = try await PostgresStorage(location: location.inSchema(schema))
                postgres.append(storage)
                return storage
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return try SQLiteStorage(path: directory.appendingPathComponent(UUID().uuidString + ".sqlite").path)
        }

        func close() async {
            for storage in postgres { await storage.close() }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: Data

    static func acl(_ g: inout Generator, world: World) -> JSONValue? {
        // Everyone may write, so a conditional update is decided by read access and its condition.
        let write: JSONValue = ["write": true]
        switch g.int(0...5) {
        case 0: return nil
        case 1: return ["*": ["read": true, "write": true]]
        case 2: return ["*": write, g.pick(world.users): ["read": true]]
        case 3: return ["*": write, "role:" + g.pick(["r0", "r1"]): ["read": true]]
        default: return ["*": write]
        }
    }

    /// Four users, roles `r0` (u0, u1) and `r1` (u2, and `r0` as a child role, so u0 and u1
    /// hold it too), and objects of `A` and `B` pointing at each other and at users.
    static func makeWorld(_ service: DataService, _ g: inout Generator) async throws -> World {
        var world = World()
        for index in 0..<userCount {
            let user = try await service.create(
                "_User",
                body: [
                    "username": .string("u\(index)"), "password": "pw", "email": .string("u\(index)@example.com"),
                    "n": .int(Int64(g.int(0...4))),
                ], caller: .master)
            world.ids["_User", default: []].append(user.objectId)
        }
        let users = world.users
        func members(_ indices: [Int]) -> JSONValue {
            ["__op": "AddRelation", "objects": .array(indices.map { ["__type": "Pointer", "className": "_User", "objectId": .string(users[$0])] })]
        }
        let r0 = try await service.create("_Role", body: ["name": "r0", "users": members([0, 1])], caller: .master)
        _ = try await service.create(
            "_Role",
            body: [
                "name": "r1", "users": members([2]),
                "roles": ["__op": "AddRelation", "objects": [["__type": "Pointer", "className": "_Role", "objectId": .string(r0.objectId)]]],
            ], caller: .master)
        world.identities = [
            users[0]: ["*", users[0], "role:r0", "role:r1"], users[1]: ["*", users[1], "role:r0", "role:r1"],
            users[2]: ["*", users[2], "role:r1"], users[3]: ["*", users[3]],
        ]
        _ = try await service.updateClassSettings("B", with: ["schema": ["secret": ["hidden": true]]], caller: .master)

        // B first (its pointers to A are added once A exists), then A pointing at B.
        for _ in 0..<14 {
            var body = Self.randomFields(&g, className: "B", world: world)
            if g.chance(80) { body["secret"] = g.pick(strings) }
            let object = try await service.create("B", body: body, caller: .master)
            world.ids["B", default: []].append(object.objectId)
        }
        for _ in 0..<18 {
            let object = try await service.create("A", body: Self.randomFields(&g, className: "A", world: world), caller: .master)
            world.ids["A", default: []].append(object.objectId)
        }
        for id in world.ids["B"]! where g.chance(70) {
            _ = try await service.update("B", id: id, body: ["a": g.pick(world.pointers(to: "A"))], caller: .master)
        }
        return world
    }

    static func randomFields(_ g: inout Generator, className: String, world: World) -> [String: JSONValue] {
        var body: [String: JSONValue] = [:]
        for (name, kind) in fields[className]! where g.chance(80) {
            switch kind {
            case .number: body[name] = .int(Int64(g.int(0...4)))
            case .string: body[name] = g.pick(strings)
            case .strings: body[name] = .array((0..<g.int(0...2)).map { _ in g.pick(strings) })
            case .pointer(let target):
                // B's pointers to A are set once A exists; the others now.
                let targets = world.pointers(to: target)
                if !targets.isEmpty { body[name] = g.pick(targets) }
            }
        }
        if let acl = acl(&g, world: world) { body["ACL"] = acl }
        return body
    }

    /// The database a user may read: in a fresh engine, with their ids, dates and stored values,
    /// the objects of `A` and `B` whose ACL lets the user read them, and of `_User` the user's own
    /// row (a client finds no other), each without the fields the user's view leaves out.
    static func readableCopy(of storage: any StorageEngine, for user: String, world: World, engines: Engines) async throws -> DataService {
        let copy = try await engines.make()
        let identities = world.identities[user]!
        for className in ["A", "B", "_User"] {
            var objects = try await storage.find(ObjectQuery(className: className, limit: ObjectQuery.maxLimit))
            objects = objects.filter { object in
                let readable: Bool
                if case .object(let acl)? = object.fields["ACL"] {
                    readable = identities.contains { acl[$0]?["read"] == true }
                } else {
                    readable = true
                }
                return readable && (className != "_User" || object.objectId == user)
            }
            for index in objects.indices {
                for field in removedFields[className] ?? [] { objects[index].fields[field] = nil }
            }
            let types = try await storage.fieldTypes(of: className)
            _ = try await copy.insertExported(className, objects: objects, fieldTypes: types, relations: [])
            #expect(try await copy.classExists(className), "\(className) exists in the copy even when empty")
        }
        return DataService(storage: copy)
    }

    // MARK: Queries

    /// Generates `where` conditions, remembering whether one names a hidden field.
    struct QueryMaker {
        var g: Generator
        let world: World
        var namesHidden = false

        /// A key of the class to constrain: now and then a hidden one.
        mutating func key(of className: String) -> (String, Kind) {
            if let hidden = hiddenFields[className], !hidden.isEmpty, g.chance(6) {
                namesHidden = true
                return (g.pick(hidden), .string)
            }
            return g.pick(fields[className]!)
        }

        mutating func condition(_ className: String, depth: Int) -> JSONValue {
            if g.chance(15) {
                let parts = (0..<g.int(1...3)).map { _ in condition(className, depth: depth) }
                return [g.chance(50) ? "$or" : "$and": .array(parts)]
            }
            var members: [String: JSONValue] = [:]
            for _ in 0..<g.int(0...2) {
                // A second constraint on a key would replace the first, and with it, maybe, the
                // hidden field the first named: generated on a copy, kept only for a new key.
                var copy = self
                let (key, constraint) = depth > 0 && copy.g.chance(35) ? copy.subquery(className, depth: depth) : copy.leaf(className)
                g = copy.g
                guard members[key] == nil else { continue }
                namesHidden = copy.namesHidden
                members[key] = constraint
            }
            return .object(members)
        }

        mutating func value(_ kind: Kind) -> JSONValue {
            switch kind {
            case .number: return .int(Int64(g.int(0...4)))
            case .string, .strings: return g.pick(strings)
            case .pointer(let target): return g.pick(world.pointers(to: target))
            }
        }

        mutating func leaf(_ className: String) -> (String, JSONValue) {
            let (key, kind) = key(of: className)
            switch g.int(0...6) {
            case 0, 1: return (key, value(kind))
            case 2:
                if case .number = kind { return (key, [g.pick(["$lt", "$lte", "$gt", "$gte"]): value(kind)]) }
                return (key, ["$ne": value(kind)])
            case 3: return (key, [g.chance(50) ? "$in" : "$nin": .array((0..<g.int(0...3)).map { _ in value(kind) })])
            case 4: return (key, ["$exists": .bool(g.chance(50))])
            case 5:
                if case .pointer = kind { return (key, ["$ne": value(kind)]) }
                if case .number = kind { return (key, ["$ne": value(kind)]) }
                return (key, ["$regex": g.pick(["^x", "y$", "z"])])
            default: return (key, ["$ne": value(kind)])
            }
        }

        /// `$inQuery`/`$notInQuery` on a pointer, or `$select`/`$dontSelect` matching a key of
        /// another class's objects.
        mutating func subquery(_ className: String, depth: Int) -> (String, JSONValue) {
            let pointers = fields[className]!.compactMap { field -> (String, String)? in
                if case .pointer(let target) = field.1 { return (field.0, target) }
                return nil
            }
            if g.chance(50), !pointers.isEmpty {
                let (key, target) = g.pick(pointers)
                let inner: JSONValue = ["className": .string(target), "where": condition(target, depth: depth - 1)]
                return (key, [g.chance(50) ? "$inQuery" : "$notInQuery": inner])
            }
            let other = g.pick(["A", "B", "_User"])
            let numeric = g.chance(50)
            let key = numeric ? "n" : "s"
            var subKey = numeric ? "n" : g.pick(other == "B" ? ["s", "k"] : other == "_User" ? ["username"] : ["s"])
            if let hidden = hiddenFields[other], !hidden.isEmpty, g.chance(8) {
                subKey = hidden[0]
                namesHidden = true
            }
            let inner: JSONValue = ["className": .string(other), "where": condition(other, depth: depth - 1)]
            return (key, [g.chance(50) ? "$select" : "$dontSelect": ["query": inner, "key": .string(subKey)]])
        }

        /// REST query parameters for the class: a condition, an order ending in objectId (so
        /// both databases break ties alike), sometimes a page.
        mutating func parameters(_ className: String) -> [String: String] {
            var parameters = ["where": condition(className, depth: 2).jsonString]
            var order = g.pick(["", "n,", "-n,", "s,", "-createdAt,"])
            if let hidden = hiddenFields[className], !hidden.isEmpty, g.chance(4) {
                order = hidden[0] + ","
                namesHidden = true
            }
            parameters["order"] = order + "objectId"
            if g.chance(30) { parameters["limit"] = String(g.int(0...4)) }
            if g.chance(20) { parameters["skip"] = String(g.int(0...3)) }
            return parameters
        }
    }

    /// What a query or write answers, in comparable form.
    enum Outcome: Equatable, CustomStringConvertible {
        case found([[String: JSONValue]], count: Int?)
        case written
        case refused(Int)

        var description: String {
            switch self {
            case .found(let objects, let count):
                return "\(objects.count) objects \(objects.compactMap { $0["objectId"]?.stringValue }) count \(count.map(String.init) ?? "-")"
            case .written: return "written"
            case .refused(let code): return "refused \(code)"
            }
        }
    }

    static func outcome(_ body: () async throws -> Outcome) async throws -> Outcome {
        do {
            return try await body()
        } catch let error as DataAPIError {
            return .refused(error.code.rawValue)
        }
    }

    /// Objects compared without `updatedAt`, which each database sets at its own write.
    static func comparable(_ objects: [StoredObject]) -> [[String: JSONValue]] {
        objects.map { object in
            var json = object.restJSON()
            json["updatedAt"] = nil
            return json
        }
    }

    /// The first object two answers differ in, for a failure's message.
    static func difference(_ answer: Outcome, _ expected: Outcome) -> String {
        guard case .found(let got, _) = answer, case .found(let wanted, _) = expected else { return "" }
        for (one, other) in zip(got, wanted) where one != other {
            return "\n  answered \(JSONValue.object(one).jsonString)\n  expected \(JSONValue.object(other).jsonString)"
        }
        return ""
    }

    // MARK: The property

    /// Three seeds on SQLite; one on PostgreSQL, where each round's queries cost a round trip.
    @Test(arguments: (TestDatabase.server == nil ? [1, 2, 3] : [1]) as [UInt64])
    func aCallerLearnsOnlyWhatItMayRead(seed: UInt64) async throws {
        let engines = Engines()
        do {
            try await Self.check(seed: seed, engines: engines)
        } catch {
            await engines.close()
            throw error
        }
        await engines.close()
    }

    static func check(seed: UInt64, engines: Engines) async throws {
        let storage = try await engines.make()
        let service = DataService(storage: storage)
        var g = Generator(state: seed)
        let world = try await makeWorld(service, &g)
        var copies: [String: DataService] = [:]
        for user in world.users {
            let caller = Caller(isMaster: false, user: ["objectId": .string(user)])
            // The identities the copies are built with are the server's own.
            #expect(Set((try await service.identities(of: caller) ?? []).map(\.text)) == world.identities[user], "seed \(seed)")
            copies[user] = try await readableCopy(of: storage, for: user, world: world, engines: engines)
        }

        var maker = QueryMaker(g: g, world: world)
        var refusedHidden = 0
        for round in 0..<200 {
            let user = maker.g.pick(world.users)
            let caller = Caller(isMaster: false, user: ["objectId": .string(user)])
            let reference = copies[user]!
            maker.namesHidden = false
            if maker.g.chance(15) {
                // A conditional update: matched (200), not matched (305), or refused.
                let className = maker.g.pick(["A", "B"])
                let id = maker.g.pick(world.ids[className]!)
                let condition = maker.condition(className, depth: 2)
                let predicate = try QueryPredicate(where: condition)
                let body: [String: JSONValue] = ["touched": .int(Int64(round))]
                let answer = try await outcome {
                    _ = try await service.update(className, id: id, body: body, condition: predicate, caller: caller)
                    return .written
                }
                // One the caller can't read is refused whatever the condition: it can't tell.
                let readable = try await reference.engines.production.fetch(className, id: id) != nil
                var expected = Outcome.refused(119)
                if readable, !maker.namesHidden {
                    expected = try await outcome {
                        _ = try await reference.update(className, id: id, body: body, condition: predicate, caller: .master)
                        return .written
                    }
                }
                #expect(answer == expected, "seed \(seed) round \(round) as \(user): update \(className)/\(id) where \(condition.jsonString)")
                // The other users' copies holding the object follow the write.
                if answer == .written {
                    for (other, copy) in copies where other != user {
                        guard try await copy.engines.production.fetch(className, id: id) != nil else { continue }
                        _ = try await copy.update(className, id: id, body: body, caller: .master)
                    }
                }
                continue
            }
            let className = maker.g.pick(["A", "A", "B", "B", "_User"])
            let parameters = maker.parameters(className)
            let answer = try await outcome {
                let found = try await service.find(className, parameters: parameters, withCount: true, caller: caller)
                return .found(comparable(found.objects), count: found.count)
            }
            var expected = Outcome.refused(119)
            if maker.namesHidden {
                refusedHidden += 1
            } else {
                expected = try await outcome {
                    let found = try await reference.find(className, parameters: parameters, withCount: true, caller: .master)
                    return .found(comparable(found.objects), count: found.count)
                }
            }
            #expect(
                answer == expected,
                "seed \(seed) round \(round) as \(user): \(className) \(parameters)\(Self.difference(answer, expected))")
        }
        // The generator reaches both sides of the property.
        #expect(refusedHidden > 0, "seed \(seed): no query named a hidden field")
    }
}
