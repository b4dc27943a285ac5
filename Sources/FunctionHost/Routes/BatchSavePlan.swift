import DataAPI
import Hummingbird
import JSON

/// The items of one `/batch/save` call, each resolved to a create or an update before anything
/// runs, then run in order through the same `ObjectEndpoint` as the REST routes.
///
/// Items name objects by `__internalId`: the first POST (or Objective-C's `PUT` on a class path
/// with `new: true`) of an unknown one creates the object and binds the id to it; every later
/// item with that id updates the same object, and `__children` entries point to it.
struct BatchSavePlan: Sendable {
    /// What one item does.
    enum Action: Sendable, Equatable {
        /// Creates an object; its id is bound to the item's `__internalId`.
        case create
        /// Updates an object that existed before the call (its `where` applies).
        case update(id: String)
        /// Updates the object an earlier item of the call created (a `where` is ignored: for the
        /// client that object is new, as with a create).
        case updateCreated
    }

    /// The items in order, with what each does.
    let steps: [(item: BatchSaveItem, action: Action)]

    /// Resolves every item against the ones before it.
    ///
    /// - Throws: 400 code 107 when a `__children` entry or an `__internalId` names an object no
    ///   earlier item saved, or one of another class.
    init(_ items: [BatchSaveItem]) throws {
        // internalId → its class and, for objects that existed before the call, their id.
        var bindings: [String: (className: String, existingId: String?)] = [:]
        var steps: [(item: BatchSaveItem, action: Action)] = []
        for (index, item) in items.enumerated() {
            func invalid(_ problem: String) -> HostError {
                HostError(status: .badRequest, code: 107, message: "batch/save request \(index): \(problem).")
            }
            for child in item.children where bindings[child.cid]?.className != child.className {
                throw invalid("__children entry '\(child.key)' names \(child.cid), which no earlier \(child.className) request saved")
            }
            let bound = bindings[item.internalId]
            if let bound, bound.className != item.className {
                throw invalid("__internalId \(item.internalId) names a \(bound.className), not a \(item.className)")
            }
            let action: Action
            if let id = item.pathId {
                action = .update(id: id)
            } else if let bound {
                action = bound.existingId.map { .update(id: $0) } ?? .updateCreated
            } else if item.method == .post || item.isNew {
                action = .create
            } else {
                // Objective-C names an existing object by its objectId as __internalId.
                action = .update(id: item.internalId)
            }
            if bound == nil {
                if case .update(let id) = action { bindings[item.internalId] = (item.className, id) }
                else { bindings[item.internalId] = (item.className, nil) }
            }
            steps.append((item, action))
        }
        self.steps = steps
    }

    /// Checks, before any write, what would refuse an item without running its hooks: class
    /// rules, write access, existence and `where` of every object that existed before the call
    /// (for the first item touching it; later ones see the earlier items' changes, so they are
    /// checked when they run).
    func preflight(data: DataService, caller: Caller) async throws {
        var checked: Set<String> = []
        for (item, action) in steps {
            switch action {
            case .create:
                try await data.checkWrite(item.className, id: nil, body: item.fields, condition: nil, caller: caller)
            case .update(let id):
                guard checked.insert(item.className + "/" + id).inserted else { continue }
                let condition = try item.condition.map { try QueryPredicate(whereText: $0) }
                try await data.checkWrite(item.className, id: id, body: item.fields, condition: condition, caller: caller)
            case .updateCreated:
                continue
            }
        }
    }

    /// Runs the items in order and answers each `__internalId` with the server fields of its
    /// object, the results of several items for one object merged (later ones win).
    ///
    /// The first failure ends the call with its error; the items before it stay written (each
    /// item is its own transaction, with hooks around it, as in `/batch`).
    func run(
        endpoint: ObjectEndpoint, caller: Caller, origin: RequestOrigin
    ) async throws -> [String: JSONValue] {
        var objectIds: [String: String] = [:]
        var answers: [String: [String: JSONValue]] = [:]
        for (item, action) in steps {
            var pointers: [String: JSONValue] = [:]
            for child in item.children {
                let id = try Self.objectId(of: child.cid, in: objectIds)
                pointers[child.key] = ["__type": "Pointer", "className": .string(child.className), "objectId": .string(id)]
            }
            let body = item.fields.merging(pointers) { _, pointer in pointer }
            var answer: [String: JSONValue]
            switch action {
            case .create:
                answer = try await endpoint.create(
                    item.className, body: body, parameters: item.parameters, caller: caller, origin: origin
                ).body.objectValue ?? [:]
                guard let id = answer["objectId"]?.stringValue else { throw Self.lostTrack(of: "a new object's id") }
                objectIds[item.internalId] = id
                // A new object's updatedAt is its createdAt; the SDKs expect both.
                if answer["updatedAt"] == nil { answer["updatedAt"] = answer["createdAt"] }
            case .update(let id):
                var parameters = item.parameters
                parameters["where"] = item.condition
                answer = try await endpoint.update(
                    item.className, id: id, body: body, parameters: parameters, caller: caller
                ).body.objectValue ?? [:]
                if objectIds[item.internalId] == nil { objectIds[item.internalId] = id }
            case .updateCreated:
                answer = try await endpoint.update(
                    item.className, id: try Self.objectId(of: item.internalId, in: objectIds), body: body,
                    parameters: item.parameters, caller: caller
                ).body.objectValue ?? [:]
            }
            answer.merge(pointers) { _, pointer in pointer }
            answers[item.internalId, default: [:]].merge(answer) { _, later in later }
        }
        return answers.mapValues { .object($0) }
    }

    /// The id bound to `internalId`; the plan binds every id before it is used, so a miss is a bug.
    private static func objectId(of internalId: String, in ids: [String: String]) throws -> String {
        guard let id = ids[internalId] else { throw lostTrack(of: internalId) }
        return id
    }

    /// The 500 for a bug in the plan, never the client's doing.
    private static func lostTrack(of what: String) -> HostError {
        HostError(status: .internalServerError, code: 1, message: "batch/save lost track of \(what).")
    }
}
