public import DataAPI

/// The data API given to cloud functions: the REST API's operations, in process.
public struct FunctionDataAPI: Sendable {
    let service: DataService
    let caller: Caller

    /// Creates an object; returns it as stored.
    public func create(_ className: String, _ fields: [String: JSONValue]) async throws -> StoredObject {
        try await service.create(className, body: fields, caller: caller)
    }

    /// The object with this id, if any.
    public func fetch(_ className: String, id: String, include: [String] = []) async throws -> StoredObject? {
        try await service.fetch(className, id: id, include: include, caller: caller)
    }

    /// Applies fields and operations (`["n": ["__op": "Increment", "amount": 1]]`) to an object.
    public func update(_ className: String, id: String, _ fields: [String: JSONValue]) async throws -> StoredObject {
        try await service.update(className, id: id, body: fields, caller: caller).object
    }

    /// Deletes an object.
    public func delete(_ className: String, id: String) async throws {
        try await service.delete(className, id: id, caller: caller)
    }

    /// The objects matching a `where` condition written as in the REST API.
    public func find(
        _ className: String, where condition: JSONValue? = nil, order: [SortKey] = [], limit: Int = 100
    ) async throws -> [StoredObject] {
        var query = ObjectQuery(className: className, order: order, limit: limit)
        if let condition { query.predicate = try QueryPredicate(where: condition) }
        return try await service.find(query, caller: caller).objects
    }
}
