public import JSON

/// The data API given to cloud functions and hooks: the REST API's operations, in process,
/// on behalf of one caller. Writes run hooks unless the client is told not to.
public struct DataClient: Sendable {
    /// The service every operation goes through.
    public let service: DataService
    /// Who the operations are made for.
    public let caller: Caller

    /// Creates a client acting as `caller`.
    public init(service: DataService, caller: Caller) {
        self.service = service
        self.caller = caller
    }

    /// The same client with every hook skipped (how a hook saves its own object without
    /// running itself again).
    public var withoutHooks: DataClient {
        DataClient(service: service, caller: caller.withoutHooks)
    }

    /// The same client with the master key: ACLs and class restrictions no longer apply. Cloud
    /// code acts as its caller until it asks for this, as LeanEngine's `useMasterKey` does.
    public var asMaster: DataClient {
        var caller = caller
        caller.isMaster = true
        return DataClient(service: service, caller: caller)
    }

    /// Creates an object; returns it as the caller may see it.
    public func create(_ className: String, _ fields: [String: JSONValue]) async throws -> StoredObject {
        try await service.answer(service.create(className, body: fields, caller: caller), sent: fields, caller: caller)
    }

    /// The object with this id, if any.
    public func fetch(_ className: String, id: String, include: [String] = []) async throws -> StoredObject? {
        try await service.fetch(className, id: id, include: include, caller: caller)
    }

    /// Applies fields and operations (`["n": ["__op": "Increment", "amount": 1]]`) to an object.
    public func update(_ className: String, id: String, _ fields: [String: JSONValue]) async throws -> StoredObject {
        try await service.answer(
            service.update(className, id: id, body: fields, caller: caller).object, sent: fields, caller: caller)
    }

    /// Deletes an object.
    public func delete(_ className: String, id: String) async throws {
        try await service.delete(className, id: id, caller: caller)
    }

    /// The objects matching a `where` condition written as in the REST API.
    public func find(
        _ className: String, where condition: JSONValue? = nil, order: [SortKey] = [], limit: Int = 100
    ) async throws -> [StoredObject] {
        var query: [String: JSONValue] = ["limit": .int(Int64(limit))]
        if let condition { query["where"] = condition }
        if !order.isEmpty { query["order"] = .string(order.map { ($0.descending ? "-" : "") + $0.key }.joined(separator: ",")) }
        return try await service.find(className, query: query, caller: caller).objects
    }

    /// A page of a full-text search, as the caller may see it (`GET /1.1/search/select`):
    /// objects it may not read are neither answered nor counted in `hits`; the next page is
    /// asked with the answer's `scrollID`.
    public func search(_ request: SearchRequest) async throws -> SearchAnswer {
        try await service.search(request, caller: caller)
    }

    /// The first page of the objects of `className` matching `query` (LeanCloud's query-string
    /// syntax), best match first unless `order` says otherwise.
    public func search(
        _ className: String, query: String, order: [SortKey] = [], limit: Int = SearchRequest.defaultLimit,
        highlights: [String]? = nil
    ) async throws -> SearchAnswer {
        try await search(SearchRequest(className: className, query: query, limit: limit, highlights: highlights, order: order))
    }
}
