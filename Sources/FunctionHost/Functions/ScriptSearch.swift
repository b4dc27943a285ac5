import DataAPI
import JSON

/// `data.search` (`AV.SearchQuery#find`): the script's arguments are the parameters of
/// `GET /1.1/search/select` as JSON, read by the route's own parser, and the answer is that
/// route's JSON, so a script's search means and answers what a client's does.
enum ScriptSearch {
    /// The request the arguments describe (`options` and `ignoreHooks` aside, which say who
    /// the call acts as).
    ///
    /// - Throws: 102 as the route refuses (no `q`, a malformed list or sort, `order` with
    ///   `sort`, a geo-distance sort).
    static func request(_ arguments: ScriptArguments) throws(DataAPIError) -> SearchRequest {
        var parameters = arguments.json.objectValue ?? [:]
        parameters["options"] = nil
        parameters["ignoreHooks"] = nil
        return try SearchRequest(parameters: parameters)
    }

    /// The route's answer: `results` (each with its `className`, which the SDK makes each
    /// object of, `_highlight`, and `_app_url`/`_deeplink` where `links` are known), `hits` and
    /// `sid` (null on the last page).
    static func answerJSON(_ answer: SearchAnswer, links: SearchLinks?) -> JSONValue {
        let json = answer.restJSON(links: links ?? SearchLinks(base: "", appId: ""), withClassNames: true)
        guard links == nil, case .object(var members) = json, let results = members["results"]?.arrayValue else { return json }
        // Without a server address a link would be wrong: none is given.
        members["results"] = .array(
            results.map { result in
                guard case .object(var fields) = result else { return result }
                fields["_app_url"] = nil
                fields["_deeplink"] = nil
                return .object(fields)
            })
        return .object(members)
    }
}
