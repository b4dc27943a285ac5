import DataAPI
import Hummingbird
import JSON

/// `GET /scan/classes/{Class}` (master key): walks a class of any size in a stable order, a page
/// at a time, the way data is exported: objectId order, or `scan_key` (`key` or `-key`) as the
/// SDKs' `scan(batchSize, scanKey)` send it. `cursor` is opaque to clients.
struct ScanRoutes: Sendable {
    let data: DataService

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("scan/classes/:className") { request, context in
            let parameters = request.queryParameters
            let className = try context.parameters.require("className")
            let order = try ScanOrder(scanKey: parameters["scan_key"])
            var predicate: QueryPredicate?
            if let whereText = parameters["where"], !whereText.isEmpty {
                predicate = try QueryPredicate(whereText: whereText)
            }
            let limit = try parameters["limit"].map { text -> Int in
                guard let value = Int(text) else { throw DataAPIError(.invalidQuery, "limit must be an integer.") }
                return value
            } ?? 100
            let cursor = parameters["cursor"].flatMap { $0.isEmpty ? nil : $0 }
            let (objects, next) = try await data.scan(
                className, predicate: predicate, order: order, cursor: cursor, limit: limit, caller: context.caller)
            var body: [String: JSONValue] = ["results": .array(objects.map { .object($0.restJSON()) })]
            body["cursor"] = next.map { .string($0) } ?? .null
            return JSONResponse(.object(body))
        }
    }
}
