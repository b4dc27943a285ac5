import DataAPI
import Foundation
import Hummingbird
import JSON

/// `GET /scan/classes/{Class}` (master key): walks a class of any size in a stable order, a page
/// at a time, the way data is exported. `cursor` is opaque to clients.
struct ScanRoutes: Sendable {
    let data: DataService

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("scan/classes/:className") { request, context in
            let parameters = request.queryParameters
            let className = try context.parameters.require("className")
            if let scanKey = parameters["scan_key"], scanKey != "objectId" {
                throw DataAPIError(.invalidQuery, "scan_key may only be objectId.")
            }
            var predicate: QueryPredicate?
            if let whereText = parameters["where"], !whereText.isEmpty {
                predicate = try QueryPredicate(whereText: whereText)
            }
            let limit = try parameters["limit"].map { text -> Int in
                guard let value = Int(text) else { throw DataAPIError(.invalidQuery, "limit must be an integer.") }
                return value
            } ?? 100
            var after: String?
            if let cursor = parameters["cursor"], !cursor.isEmpty {
                guard let data = Data(base64Encoded: cursor), let id = String(data: data, encoding: .utf8) else {
                    throw DataAPIError(.invalidQuery, "Invalid cursor.")
                }
                after = id
            }
            let (objects, next) = try await data.scan(
                className, predicate: predicate, cursor: after, limit: limit, caller: context.caller)
            var body: [String: JSONValue] = ["results": .array(objects.map { .object($0.restJSON()) })]
            body["cursor"] = next.map { .string(Data($0.utf8).base64EncodedString()) } ?? .null
            return JSONResponse(.object(body))
        }
    }
}
