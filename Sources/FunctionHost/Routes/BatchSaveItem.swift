import DataAPI
import Hummingbird
import JSON

/// One item of a `POST /batch/save` call, checked and taken apart before anything is written:
/// a malformed item fails the whole call with 400 and no write.
struct BatchSaveItem: Sendable {
    /// What the item asks for; the batch decides whether it creates or updates (see `BatchSavePlan`).
    enum Method: String, Sendable {
        /// Creates an object (or updates the one an earlier item created under the same `__internalId`).
        case post = "POST"
        /// Updates an object (or, with `new: true` and no id, creates it: Objective-C's shape).
        case put = "PUT"
    }

    /// A `__children` entry: field `key` gets a Pointer to the object an earlier item bound to `cid`.
    struct Child: Sendable {
        /// The class of the child object.
        let className: String
        /// The child's `__internalId`.
        let cid: String
        /// The field of this item's object that points to the child.
        let key: String
    }

    /// Where the item is answered and how later items name its object: `__internalId`, or the
    /// path's objectId when the body has none.
    let internalId: String
    /// POST or PUT.
    let method: Method
    /// The class the path names (`_User` for `/users`).
    let className: String
    /// The objectId at the end of the path, if any.
    let pathId: String?
    /// The body without `__internalId` and `__children`, which are never stored.
    let fields: [String: JSONValue]
    /// The pointers to set from objects saved earlier in the call.
    let children: [Child]
    /// `new: true`: the client had no objectId for the object when it built the request.
    let isNew: Bool
    /// The path's query and the item's `params` as REST parameters; `where` is kept apart.
    let parameters: [String: String]
    /// `params.where` as JSON text, for updates of objects that existed before the call.
    let condition: String?

    /// The classes with a path of their own, as SDKs name them.
    static let aliases = ["users": "_User", "roles": "_Role", "installations": "_Installation"]

    /// Parses the item at `index` (counted from 0, for the error message).
    ///
    /// - Throws: 400 code 107 naming the item and what is wrong with it.
    init(_ entry: JSONValue, index: Int) throws {
        func invalid(_ problem: String) -> HostError {
            HostError(status: .badRequest, code: 107, message: "batch/save request \(index): \(problem).")
        }
        guard case .object(let entry) = entry else { throw invalid("it must be a JSON object") }
        guard let name = entry["method"]?.stringValue, let method = Method(rawValue: name.uppercased()) else {
            throw invalid("method must be POST or PUT")
        }
        guard case .string(let rawPath)? = entry["path"], let path = Self.storagePath(rawPath) else {
            throw invalid("path must name a class or an object (/1.1/classes/{Class}[/{id}], /1.1/users[/{id}], ...)")
        }
        let (className, pathId, query) = path
        guard case .object(var body)? = entry["body"] else { throw invalid("body must be a JSON object") }
        let internalId = body.removeValue(forKey: "__internalId")
        guard let internalId = internalId == nil ? pathId : internalId?.stringValue, !internalId.isEmpty else {
            throw invalid("body needs a __internalId string, which the answer is keyed by")
        }
        if method == .post, pathId != nil { throw invalid("POST creates: its path can't name an objectId") }
        var children: [Child] = []
        switch body.removeValue(forKey: "__children") {
        case nil, .null?: break
        case .array(let list)?:
            for child in list {
                guard let className = child["className"]?.stringValue, let cid = child["cid"]?.stringValue,
                    let key = child["key"]?.stringValue
                else { throw invalid("each __children entry needs className, cid and key strings") }
                children.append(Child(className: className, cid: cid, key: key))
            }
        default: throw invalid("__children must be an array")
        }
        var parameters = query
        var condition: String?
        switch entry["params"] {
        case nil, .null?: break
        case .object(let params)?:
            for (key, value) in params where key != "where" { parameters[key] = value.stringValue ?? value.jsonString }
            // SDKs send `where` as an object; the REST form (text) is read too.
            condition = params["where"].flatMap { $0 == .null ? nil : $0.stringValue ?? $0.jsonString }
        default: throw invalid("params must be a JSON object")
        }
        if let text = parameters.removeValue(forKey: "where"), condition == nil, !text.isEmpty { condition = text }
        self.internalId = internalId
        self.method = method
        self.className = className
        self.pathId = pathId
        self.fields = body
        self.children = children
        self.isNew = entry["new"]?.boolValue == true
        self.parameters = parameters
        self.condition = condition
    }

    /// `/1.1/classes/Post/abc`, `/1/users`, `classes/Post` → (class, objectId?, query
    /// parameters); nil for anything that isn't an object or class path.
    static func storagePath(_ rawPath: String) -> (className: String, id: String?, query: [String: String])? {
        let parts = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var segments = (parts.first ?? "").split(separator: "/").map(String.init)
        if let first = segments.first, first == "1.1" || first == "1" { segments.removeFirst() }
        let query = parts.count > 1 ? Request.formParameters(parts[1]) : [:]
        switch segments.first {
        case "classes"? where (2...3).contains(segments.count):
            return (segments[1], segments.count == 3 ? segments[2] : nil, query)
        case let head? where aliases[head] != nil && segments.count <= 2:
            return (aliases[head]!, segments.count == 2 ? segments[1] : nil, query)
        default:
            return nil
        }
    }
}
