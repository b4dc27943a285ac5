import DataAPI
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /2.0/batch` (and `/2.0/classes/batch`), as MaxLeap's server takes it: at most 50
/// requests, methods in any case, any path containing `classes/` (`BAAS:api/resource/CloudDataBatchResource.java:43-126`).
/// It becomes LeanCloud's `/1.1/batch`, so each item is served (authorized, hooked) as a request
/// of its own; the answer is a raw array.
enum DialectBatch {
    /// The most requests one dialect batch may carry.
    static let maxRequests = 50

    /// The plan for a batch body.
    ///
    /// - Throws: 400 code 1 for the whole call when `requests` is not an array, holds more than 50
    ///   requests, or one of them isn't a POST, PUT or DELETE on a `classes/` path.
    static func plan(_ body: [String: JSONValue]) throws -> DialectPlan {
        guard case .array(let requests)? = body["requests"] else {
            throw HostError(status: .badRequest, code: 1, message: "A batch needs a requests array.")
        }
        guard requests.count <= maxRequests else {
            throw HostError(status: .badRequest, code: 1, message: "A batch may hold at most \(maxRequests) requests.")
        }
        var items: [JSONValue] = []
        var answers: [DialectAnswer] = []
        for request in requests {
            let method = request["method"]?.stringValue?.uppercased() ?? ""
            guard let path = request["path"]?.stringValue, let start = path.range(of: "classes/"),
                ["POST", "PUT", "DELETE"].contains(method)
            else {
                throw HostError(status: .badRequest, code: 1, message: "Each batch request needs POST, PUT or DELETE on a classes/ path.")
            }
            let route = path[start.lowerBound...]
            let parts = route.split(separator: "?", maxSplits: 1)
            let segments = (parts.first ?? "").split(separator: "/")
            let itemBody = DialectBody.cleaned(request["body"]?.objectValue ?? [:])
            var query = parts.count > 1 ? Request.formParameters(parts[1]) : [:]
            let answer: DialectAnswer
            switch method {
            case "POST":
                let signsUp = segments.count > 1 && segments[1] == "_User"
                // A signup answers the stored user, as a single one does (`DialectPlan.signUp`).
                if signsUp { query["fetchWhenSave"] = "true" }
                answer = .created(user: signsUp)
            case "PUT":
                let increments = Set(
                    itemBody.compactMap { key, value in
                        ["Increment", "Decrement"].contains(value["__op"]?.stringValue ?? "") ? key : nil
                    })
                let whole = query["new"] == "true"
                if !increments.isEmpty { query["new"] = "true" }
                answer = .update(increments: increments, whole: whole)
            default: answer = .delete
            }
            answers.append(answer)
            items.append([
                "method": .string(method), "path": .string("/1.1/" + (parts.first ?? "") + DialectPlan.encodedQuery(query)),
                "body": .object(itemBody),
            ])
        }
        return DialectPlan(method: .post, path: "/1.1/batch", body: .json(["requests": .array(items)]), answer: .batch(answers))
    }
}
