import DataAPI
import Hummingbird
import JSON

/// LeanCloud's in-app search: `GET /search/select` (any caller; results and `hits` as the caller
/// may find them), and the master key's settings of which classes and fields are searched:
/// `GET /search/classes`, `PUT /search/classes/{Class}` with `{"fields": [...]}`, and
/// `DELETE /search/classes/{Class}`. LeanCloud sets these in its console only.
struct SearchRoutes: Sendable {
    let data: DataService
    /// The configured public address, the start of each result's `_app_url`.
    let publicURL: String?
    /// The app id, whose first 8 characters make the default URL scheme of `_deeplink`.
    let appId: String

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("search/select") { request, context in
            let search = try SearchRequest(parameters: ObjectQuery.json(request.queryParameters))
            let answer = try await data.search(search, caller: context.caller)
            let links = SearchLinks(base: LinkBase.forFiles(publicURL: publicURL, context: context), appId: appId)
            return JSONResponse(answer.restJSON(links: links, withClassNames: search.className == nil))
        }
        group.get("search/classes") { _, context in
            let settings = try await data.searchSettings(caller: context.caller)
            return JSONResponse(["results": .array(settings.map(Self.json))])
        }
        group.put("search/classes/:className") { request, context in
            let className = try context.parameters.require("className")
            var request = request
            let body = try await request.jsonObject(context: context)
            guard case .array(let items)? = body["fields"], items.count <= SearchSettings.maxFields * 4,
                items.allSatisfy({ $0.stringValue != nil })
            else {
                throw DataAPIError(.badParameters, "The body is {\"fields\": [names of the fields to search]}.")
            }
            let settings = try await data.setSearch(className, fields: items.compactMap(\.stringValue), caller: context.caller)
            return JSONResponse(settings.map(Self.json) ?? [:])
        }
        group.delete("search/classes/:className") { _, context in
            _ = try await data.setSearch(try context.parameters.require("className"), fields: nil, caller: context.caller)
            return JSONResponse([:])
        }
    }

    private static func json(_ settings: SearchSettings) -> JSONValue {
        ["className": .string(settings.className), "fields": .array(settings.fields.map(JSONValue.string))]
    }
}
