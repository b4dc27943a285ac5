import DataAPI
import JSON
import Sandbox

/// The `data.*` operations the injected JavaScript SDK asks of the host (`AV.Object.save`,
/// `AV.Query.find`, ...), performed through the same `DataService` and with the same parameter
/// parsing as the REST routes, so a script's query means exactly what a client's would.
///
/// Arguments arrive as the JSON the script passed to `__fhCall`; results go back in LeanCloud's
/// REST form (`objectId`, `createdAt`, `updatedAt`, fields with `__type` encoding).
struct ScriptDataOperations: Sendable {
    /// The data layer every write and read goes through.
    let service: DataService

    /// Where search results link to (`_app_url`, `_deeplink`); nil leaves the links out.
    let searchLinks: SearchLinkSource?

    /// Creates the operations over a data service.
    init(service: DataService, searchLinks: SearchLinkSource? = nil) {
        self.service = service
        self.searchLinks = searchLinks
    }

    /// Performs one `data.*` operation for `caller`.
    ///
    /// - Throws: `HostCallError` with the data layer's LeanCloud code and message; code 1 for any
    ///   other failure and for an operation that isn't a data operation.
    func perform(_ operation: BridgeOperation, arguments: JSONValue, caller: Caller) async throws(HostCallError) -> JSONValue {
        do {
            return try await run(operation, ScriptArguments(arguments), caller: caller)
        } catch let error as HostCallError {
            throw error
        } catch {
            // The code and message a REST client would get (a hook's rejection keeps its code).
            let mapped = HostError(mapping: error)
            throw HostCallError(code: mapped?.code ?? 1, message: mapped?.message ?? String(describing: error))
        }
    }

    /// Dispatches one operation; any error is mapped by `perform`.
    private func run(_ operation: BridgeOperation, _ arguments: ScriptArguments, caller: Caller) async throws -> JSONValue {
        switch operation {
        case .dataCreate:
            // A create has no condition to check (a `where` is ignored, as over REST), and it
            // always answers the whole object, so `fetchWhenSave` changes nothing here.
            let body = try arguments.body()
            let object = try await service.create(try arguments.className(), body: body, caller: caller)
            return .object(try await service.answer(object, sent: body, caller: caller).restJSON())
        case .dataUpdate:
            let body = try arguments.body()
            let object = try await service.update(
                try arguments.className(), id: try arguments.objectId(), body: body,
                condition: try arguments.condition(), caller: caller).object
            return .object(try await service.answer(object, sent: body, caller: caller).restJSON())
        case .dataDelete:
            try await service.delete(
                try arguments.className(), id: try arguments.objectId(), condition: try arguments.condition(),
                caller: caller)
            return .null
        case .dataFetch:
            return try await fetch(arguments, caller: caller)
        case .dataFind:
            // Through the parameters, as the REST route does, so find hooks run for scripts too.
            let (query, objects, _) = try await service.find(try arguments.className(), query: arguments.query(), caller: caller)
            return .array(
                objects.map { object in
                    let json = object.restJSON(includeACL: query.returnACL)
                    return .object(query.keys?.apply(to: json) ?? json)
                })
        case .dataCount:
            // Only the condition counts, as in `GET /classes/{cls}?count=1&limit=0`; through the
            // parameters, so `beforeFind` narrows counts as it narrows finds.
            var parameters = arguments.query()
            parameters["limit"] = 0
            parameters["skip"] = nil
            parameters["count"] = 1
            let found = try await service.find(try arguments.className(), query: parameters, withCount: true, caller: caller)
            return .int(Int64(found.count ?? 0))
        case .dataSearch:
            // The caller's search, as `GET /1.1/search/select` runs it for a client.
            let request = try ScriptSearch.request(arguments)
            let answer = try await service.search(request, caller: caller)
            return ScriptSearch.answerJSON(answer, links: searchLinks?.links)
        case .cloudRun, .cloudUser, .cloudEnqueue, .cloudTaskInfo, .httpRequest:
            throw HostCallError(code: 1, message: "'\(operation.rawValue)' is not a data operation.")
        }
    }

    /// `data.fetch`: the object (includes resolved, keys selected), or 101 when it is missing.
    private func fetch(_ arguments: ScriptArguments, caller: Caller) async throws -> JSONValue {
        let className = try arguments.className()
        let include = ObjectQuery.includePaths(try arguments.list("include") ?? "")
        guard
            let object = try await service.fetch(className, id: try arguments.objectId(), include: include, caller: caller)
        else {
            // REST answers `{}`; the SDKs turn that into 101, which a script should see directly.
            throw DataAPIError(.objectNotFound, "Object not found.")
        }
        let json = object.restJSON()
        guard let keys = try arguments.list("keys"), !keys.isEmpty else { return .object(json) }
        return .object(KeySelection(keys).apply(to: json))
    }
}
