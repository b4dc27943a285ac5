import DataAPI
import Foundation
import HTTPTypes

/// How one dialect request is served: the LeanCloud request it becomes (method, path, body) and
/// how the answer is put back into the dialect's shape. Endpoints with no LeanCloud twin keep a
/// `/2.0/` path and are served by `DialectRoutes`.
struct DialectPlan: Sendable {
    /// What the request body becomes.
    enum Body: Sendable {
        /// The body as it came (streamed: file uploads).
        case unchanged
        /// A JSON body.
        case json(JSONValue)
        /// No body.
        case empty
    }

    var method: HTTPRequest.Method
    /// The path with its query string.
    var path: String
    var body: Body
    var answer: DialectAnswer

    /// The plan for a request, from its method, its route (the path after the version prefix),
    /// its query parameters and its JSON body (transport fields removed); nil for a route the
    /// dialects don't serve (answered 404 in the dialect's shape).
    static func make(
        method: HTTPRequest.Method, route: Substring, query: [String: String], body: [String: JSONValue]
    ) throws -> DialectPlan? {
        let segments = route.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        return try self.route(method: method, segments: segments, query: query, body: body)
    }

    /// The route table (`DOC:`, `JS:` and `BAAS:` sources in `las-maxleap-dialects.md` §5-§11).
    private static func route(
        method: HTTPRequest.Method, segments: [String], query: [String: String], body: [String: JSONValue]
    ) throws -> DialectPlan? {
        let object = JSONValue.object(body)
        func to(
            _ path: String, _ answer: DialectAnswer, method newMethod: HTTPRequest.Method? = nil,
            query newQuery: [String: String]? = nil, body newBody: JSONValue? = nil
        ) -> DialectPlan {
            DialectPlan(
                method: newMethod ?? method, path: "/1.1/" + path + encodedQuery(newQuery ?? query),
                body: .json(newBody ?? object), answer: answer)
        }
        func native(_ answer: DialectAnswer = .native, body newBody: JSONValue? = nil) -> DialectPlan {
            DialectPlan(
                method: method, path: "/2.0/" + segments.joined(separator: "/") + encodedQuery(query),
                body: .json(newBody ?? object), answer: answer)
        }
        guard let first = segments.first else { return nil }
        switch (method, first, segments.count) {
        // Objects and queries (§5, §6).
        case (.post, "classes", 2) where segments[1] == "batch":
            return try DialectBatch.plan(body)
        case (.post, "classes", 2) where segments[1] == "_User":
            return signUp(segments.joined(separator: "/"), body: body, query: query)
        case (.post, "classes", 2):
            return to(segments.joined(separator: "/"), .created(user: false))
        case (.get, "classes", 2):
            return to(segments.joined(separator: "/"), .query, body: [:])
        case (.post, "classes", 3) where segments[2] == "query":
            return to("classes/\(segments[1])", .query, method: .get, query: queryParameters(body, merging: query), body: [:])
        case (.post, "classes", 3) where segments[2] == "delete":
            return native()
        case (.get, "classes", 3):
            return to(segments.joined(separator: "/"), .fetch(user: segments[1] == "_User"), body: [:])
        case (.put, "classes", 3):
            return update(segments.joined(separator: "/"), body: body, query: query)
        case (.delete, "classes", 3):
            // Served by `DialectRoutes`, which knows whether there was an object to delete:
            // `{"number":0}` when not (`BAAS:CloudDataResource.java`), where LeanCloud answers `{}` either way.
            return native(body: [:])
        case (.post, "batch", 1):
            return try DialectBatch.plan(body)
        // Users (§8).
        case (.post, "users", 1):
            return signUp("users", body: DialectBody.leanCloudPhone(body), query: query)
        case (.get, "users", 1):
            return to("users", .query, body: [:])
        case (.get, "users", 2) where segments[1] == "me":
            return to("users/me", .me, body: [:])
        case (.get, "users", 2):
            return to(segments.joined(separator: "/"), .fetch(user: true), body: [:])
        case (.put, "users", 2):
            return update(segments.joined(separator: "/"), body: DialectBody.leanCloudPhone(body), query: query)
        case (.delete, "users", 2):
            return try route(method: method, segments: ["classes", "_User", segments[1]], query: query, body: body)
        case (.get, "login", 1):
            // `GET /2.0/login?username=&password=` (docs, LAS Python) is the JS SDK's POST.
            var fields: [String: JSONValue] = [:]
            for (key, value) in query { fields[key] = .string(value) }
            return to("login", .user, method: .post, query: [:], body: .object(DialectBody.leanCloudPhone(fields)))
        case (.post, "login", 1):
            return to("login", .user, body: .object(DialectBody.leanCloudPhone(body)))
        case (.get, "logout", 1), (.post, "logout", 1):
            // MaxLeap's logout ends the session; LeanCloud's ends nothing (`DialectRoutes`).
            return native(body: [:])
        case (.post, "updatePassword", 1):
            return native()
        case (.post, "loginByMobilePhone", 1):
            // The code of `requestLoginSmsCode` is a login code: LeanCloud's login by phone and code.
            let fields = DialectBody.leanCloudPhone(body)
            return to(
                "login", .user,
                body: ["mobilePhoneNumber": fields["mobilePhoneNumber"] ?? "", "smsCode": fields["smsCode"] ?? ""])
        case (.post, "usersByMobilePhone", 1):
            return to("usersByMobilePhone", .user, body: .object(DialectBody.leanCloudPhone(body)))
        case (.post, "requestPasswordReset", 1), (.post, "requestEmailVerify", 1), (.post, "requestLoginSmsCode", 1),
            (.post, "requestMobilePhoneVerify", 1), (.post, "requestPasswordResetBySmsCode", 1),
            (.post, "requestSmsCode", 1):
            return to(first, .success, body: .object(DialectBody.leanCloudPhone(body)))
        case (.post, "verifyMobilePhone", 2), (.put, "verifyMobilePhone", 2):
            return to(segments.joined(separator: "/"), .success, method: .post, body: .object(DialectBody.leanCloudPhone(body)))
        case (.put, "verifyMobilePhone", 1), (.post, "verifySmsCode", 1):
            // The swagger's forms carry the code in the body; LeanCloud's in the path.
            let code = body["smsCode"]?.stringValue ?? ""
            return to("\(first)/\(Self.pathSegment(code))", .success, method: .post, body: .object(DialectBody.leanCloudPhone(body)))
        case (.put, "resetPasswordBySmsCode", 2):
            return to(segments.joined(separator: "/"), .success, body: .object(DialectBody.leanCloudPhone(body)))
        case (.put, "resetPasswordBySmsCode", 1):
            let code = body["smsCode"]?.stringValue ?? ""
            return to("resetPasswordBySmsCode/\(Self.pathSegment(code))", .success, body: .object(DialectBody.leanCloudPhone(body)))
        // Roles (§9): `_Role` as a class, and LeanCloud's `/roles` alias.
        case (_, "roles", 1...2):
            return try route(method: method, segments: ["classes", "_Role"] + segments.dropFirst(), query: query, body: body)
        // Files (§10).
        case (.put, "files", 2), (.post, "files", 2):
            return DialectPlan(
                method: .post, path: "/1.1/files/" + segments[1], body: .unchanged, answer: .fileUploaded)
        case (.delete, "files", 1), (.get, "files", 1):
            return native()
        case (.delete, "files", 2):
            let id = FileName.objectId(in: segments[1]) ?? segments[1]
            return to("files/\(id)", .fileDeleted, body: [:])
        // Cloud functions (§11): the function's result is the whole answer.
        case (.post, "functions", 2), (.get, "functions", 2):
            return to(segments.joined(separator: "/"), .function, method: .post)
        case (.get, "cloudQuery", 1):
            return to("cloudQuery", .query, body: [:])
        default:
            return nil
        }
    }

    /// A signup: MaxLeap answers the new user as stored, without its password, and its
    /// `sessionToken` (`DOC:AccountSystem.md:22-50`, `BAAS:AppUserResource.java:43-76`), which
    /// LeanCloud's route answers when asked for the saved fields (`fetchWhenSave`).
    private static func signUp(_ path: String, body: [String: JSONValue], query: [String: String]) -> DialectPlan {
        var query = query
        query["fetchWhenSave"] = "true"
        return DialectPlan(
            method: .post, path: "/1.1/" + path + encodedQuery(query), body: .json(.object(body)),
            answer: .created(user: true))
    }

    /// An update: the answer carries `number`, `updatedAt` and the new value of each incremented
    /// key, which LeanCloud's route answers when asked for the saved fields (`new=true`).
    private static func update(_ path: String, body: [String: JSONValue], query: [String: String]) -> DialectPlan {
        let increments = Set(
            body.compactMap { key, value in
                let op = value["__op"]?.stringValue
                return op == "Increment" || op == "Decrement" ? key : nil
            })
        let whole = query["new"] == "true" || query["fetchWhenSave"] == "true"
        var query = query
        if !increments.isEmpty { query["new"] = "true" }
        return DialectPlan(
            method: .put, path: "/1.1/" + path + encodedQuery(query), body: .json(.object(body)),
            answer: .update(increments: increments, whole: whole))
    }

    /// The query parameters of `POST /classes/{C}/query`: the body's members (`where` as an object
    /// as the JS SDK sends it, or as JSON text as the Java SDK does) over the URL's.
    static func queryParameters(_ body: [String: JSONValue], merging query: [String: String]) -> [String: String] {
        var parameters = query
        for (key, value) in body {
            switch value {
            case .string(let text): parameters[key] = text
            case .null: continue
            default: parameters[key] = value.jsonString
            }
        }
        return parameters
    }

    /// `?a=1&b=2`, percent-encoded; empty for none.
    static func encodedQuery(_ query: [String: String]) -> String {
        guard !query.isEmpty else { return "" }
        return "?" + query.keys.sorted().map { "\(pathSegment($0))=\(pathSegment(query[$0]!))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Percent-encodes all but unreserved ASCII characters.
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
