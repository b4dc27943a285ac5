public import JSON

/// Where a search result's links point: LeanCloud's DeepLink settings (`_app_url` is the web
/// page of a result, `_deeplink` opens it in the app).
public struct SearchLinks: Sendable, Hashable {
    /// The start of `_app_url`: the server's public address (`https://api.example.com`).
    public var base: String
    /// The app's URL scheme (LeanCloud suggests `com.leancloud.<first 8 characters of the app id>`).
    public var scheme: String
    /// The URL host of `_deeplink` (LeanCloud's default, `leancloud`).
    public var host: String

    /// Links under `base` with LeanCloud's suggested scheme for the app, and its default host.
    public init(base: String, appId: String, scheme: String? = nil, host: String = "leancloud") {
        self.base = base
        self.scheme = scheme ?? "com.leancloud." + String(appId.prefix(8)).lowercased()
        self.host = host
    }
}

extension SearchAnswer {
    /// The answer of `GET /1.1/search/select`: `results` (each the object's REST JSON with
    /// `_app_url`, `_deeplink` and `_highlight`, null unless highlights were asked; `className`
    /// too when the search covered every class), `hits`, and `sid`, null on the last page (the C#
    /// SDK reads both keys unconditionally).
    public func restJSON(links: SearchLinks, withClassNames: Bool) -> JSONValue {
        let results: [JSONValue] = results.map { result in
            let object = result.object
            var json = object.restJSON()
            let path = "classes/\(object.className)/\(object.objectId)"
            json["_app_url"] = .string("\(links.base)/1.1/go/\(links.scheme)/\(path)")
            json["_deeplink"] = .string("\(links.scheme)://\(links.host)/\(path)")
            json["_highlight"] = result.highlight.map { highlight in
                .object(highlight.mapValues { .array($0.map(JSONValue.string)) })
            } ?? .null
            if withClassNames { json["className"] = .string(object.className) }
            return .object(json)
        }
        return ["results": .array(results), "hits": .int(Int64(hits)), "sid": scrollID.map(JSONValue.string) ?? .null]
    }
}
