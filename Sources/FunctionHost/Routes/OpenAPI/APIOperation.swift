import DataAPI
import JSON

/// One operation of the REST surface, as the OpenAPI document describes it.
struct APIOperation: Sendable {
    /// Who may call it.
    enum Access: Sendable {
        /// No keys: the health check, file URLs, email links, token uploads.
        case open
        /// The app's keys (`X-LC-Id` + `X-LC-Key`), the master key accepted too.
        case client
        /// The master key only.
        case master
        /// The hook key (`X-LC-Hook-Key`), as a storage service calls a hook host.
        case hookKey
        /// A console session: its cookie, and `X-Console-CSRF` on every change.
        case console
    }

    /// What a query parameter holds.
    struct Parameter: Sendable {
        var name: String
        var type: String
        var description: String
        var required = false
    }

    /// `get`, `post`, `put`, `delete`, `head`.
    var method: String
    /// The path in OpenAPI's form, after the `/1.1` (or `/1`) prefix when `prefixed`.
    var path: String
    /// Whether it is served under both `/1.1` and `/1`.
    var prefixed = true
    var tag: String
    var summary: String
    var access: Access = .client
    var query: [Parameter] = []
    /// The JSON body's schema, when it takes one.
    var body: JSONValue? = nil
    /// The success status.
    var success = "200"
    /// The success answer's schema (a `$ref` or inline), when it is JSON.
    var answer: JSONValue? = ["$ref": "#/components/schemas/Object"]

    init(
        _ method: String, _ path: String, prefixed: Bool = true, tag: String, _ summary: String, access: Access = .client,
        query: [Parameter] = [], body: JSONValue? = nil, success: String = "200",
        answer: JSONValue? = ["$ref": "#/components/schemas/Object"]
    ) {
        self.method = method
        self.path = path
        self.prefixed = prefixed
        self.tag = tag
        self.summary = summary
        self.access = access
        self.query = query
        self.body = body
        self.success = success
        self.answer = answer
    }

    /// A JSON object schema with these properties (more are allowed).
    static func object(_ properties: [String: String], required: [String] = []) -> JSONValue {
        var schema: [String: JSONValue] = [
            "type": "object", "additionalProperties": true,
            "properties": .object(properties.mapValues { type in ["type": .string(type)] }),
        ]
        if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
        return .object(schema)
    }

    /// A reference to a shared schema.
    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    /// The query parameters of a find.
    static let findParameters: [Parameter] = [
        Parameter(name: "where", type: "string", description: "A JSON query: {\"field\": value, \"n\": {\"$gt\": 1}, ...}."),
        Parameter(name: "order", type: "string", description: "Sort keys, comma-separated; - for descending."),
        Parameter(name: "limit", type: "integer", description: "At most this many results (default 100, at most 1000)."),
        Parameter(name: "skip", type: "integer", description: "Results to skip."),
        Parameter(name: "keys", type: "string", description: "The fields to return, comma-separated; -field leaves one out."),
        Parameter(name: "include", type: "string", description: "Pointer (and File) fields to expand, comma-separated; a.b for nested."),
        Parameter(name: "count", type: "integer", description: "1 adds the number of matching objects."),
        Parameter(name: "returnACL", type: "boolean", description: "true returns each object's ACL."),
    ]

    /// The query parameters of a fetch or a write that answers with the object.
    static let fetchParameters: [Parameter] = [
        Parameter(name: "keys", type: "string", description: "The fields to return, comma-separated."),
        Parameter(name: "include", type: "string", description: "Pointer fields to expand."),
    ]

    /// The parameters of a conditional write.
    static let writeParameters: [Parameter] = [
        Parameter(name: "fetchWhenSave", type: "boolean", description: "true answers with the object's fields after the write."),
        Parameter(name: "where", type: "string", description: "A JSON condition: the write happens only if the object matches it (else 305)."),
    ]
}
