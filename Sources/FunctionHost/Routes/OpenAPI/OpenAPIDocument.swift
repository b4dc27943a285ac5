import DataAPI
import JSON

/// The OpenAPI 3 description of the REST surface, served at `/openapi.json`. A test checks it
/// against the router: every route served is described, and nothing else.
enum OpenAPIDocument {
    /// Every operation, from the per-area lists.
    static var operations: [APIOperation] {
        objectOperations + userOperations + functionOperations + engineOperations + queueOperations + socialOperations
            + leaderboardOperations + fileOperations
            + dialectOperations + consoleOperations
    }

    /// Where the console's session reaches the API's routes again, as the master key.
    static let consolePrefix = "/console/api/1.1"

    /// The document.
    static func build(version: String) -> JSONValue {
        var paths: [String: [String: JSONValue]] = [:]
        for operation in operations {
            let prefixes = operation.prefixed ? ["/1.1", "/1"] : [""]
            for prefix in prefixes {
                paths[prefix + operation.path, default: [:]][operation.method] = render(operation, prefix: prefix)
            }
            // Every route behind the app's keys is the console's too, behind its session.
            if operation.prefixed, operation.access == .client || operation.access == .master {
                var mounted = operation
                mounted.access = .console
                paths[consolePrefix + operation.path, default: [:]][operation.method] = render(mounted, prefix: consolePrefix)
            }
        }
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "FunctionHost",
                "version": .string(version),
                "description": "The LeanCloud REST protocol as FunctionHost serves it. /1.1 and /1 are the same API.",
            ],
            "paths": .object(paths.mapValues { .object($0) }),
            "components": components,
        ]
    }

    private static func render(_ operation: APIOperation, prefix: String) -> JSONValue {
        var parameters: [JSONValue] = []
        // Every `{name}` of the path is a required path parameter.
        for segment in operation.path.split(separator: "/") where segment.hasPrefix("{") && segment.hasSuffix("}") {
            parameters.append([
                "name": .string(String(segment.dropFirst().dropLast())), "in": "path", "required": true,
                "schema": ["type": "string"],
            ])
        }
        for parameter in operation.query {
            parameters.append([
                "name": .string(parameter.name), "in": "query", "required": .bool(parameter.required),
                "description": .string(parameter.description), "schema": ["type": .string(parameter.type)],
            ])
        }
        if operation.access == .client || operation.access == .master || operation.access == .console {
            parameters.append([
                "name": "X-LC-Prod", "in": "header", "required": false,
                "description": "0 or false: the staging environment's code and hooks.", "schema": ["type": "string"],
            ])
        }
        var success: [String: JSONValue] = ["description": "Done."]
        if let answer = operation.answer {
            success["content"] = ["application/json": ["schema": answer]]
        }
        var rendered: [String: JSONValue] = [
            "tags": [.string(operation.tag)],
            "summary": .string(operation.summary),
            "operationId": .string(operationId(operation, prefix: prefix)),
            "parameters": .array(parameters),
            "responses": .object([
                operation.success: .object(success),
                "4XX": [
                    "description": "Refused: {code, error} with LeanCloud's code.",
                    "content": ["application/json": ["schema": APIOperation.ref("Error")]],
                ],
            ]),
            "security": security(operation.access),
        ]
        if let body = operation.body {
            rendered["requestBody"] = ["required": false, "content": ["application/json": ["schema": body]]]
        }
        return .object(rendered)
    }

    private static func operationId(_ operation: APIOperation, prefix: String) -> String {
        let words = (prefix + operation.path).split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        return operation.method + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    private static func security(_ access: APIOperation.Access) -> JSONValue {
        switch access {
        case .open: return []
        case .client: return [["appId": [], "appKey": []]]
        case .master: return [["appId": [], "masterKey": []]]
        case .hookKey: return [["hookKey": []]]
        case .console: return [["consoleSession": [], "consoleCSRF": []]]
        }
    }

    private static let components: JSONValue = [
        "securitySchemes": [
            "appId": ["type": "apiKey", "in": "header", "name": "X-LC-Id", "description": "The app's id."],
            "appKey": ["type": "apiKey", "in": "header", "name": "X-LC-Key", "description": "The app key, or <masterKey>,master."],
            "masterKey": ["type": "apiKey", "in": "header", "name": "X-LC-Key", "description": "<masterKey>,master."],
            "hookKey": ["type": "apiKey", "in": "header", "name": "X-LC-Hook-Key", "description": "The hook key."],
            "session": ["type": "apiKey", "in": "header", "name": "X-LC-Session", "description": "A user's session token."],
            "consoleSession": [
                "type": "apiKey", "in": "cookie", "name": "fh_console", "description": "The web console's session (POST /console/login).",
            ],
            "consoleCSRF": [
                "type": "apiKey", "in": "header", "name": "X-Console-CSRF",
                "description": "The session's CSRF token (GET /console/api/session), on every change.",
            ],
        ],
        "schemas": [
            "Error": [
                "type": "object", "required": ["code", "error"],
                "properties": ["code": ["type": "integer"], "error": ["type": "string"]],
            ],
            "Object": ["type": "object", "additionalProperties": true],
            "Results": [
                "type": "object",
                "properties": [
                    "results": ["type": "array", "items": ["type": "object", "additionalProperties": true]],
                    "count": ["type": "integer"],
                ],
            ],
            "Created": [
                "type": "object",
                "properties": ["objectId": ["type": "string"], "createdAt": ["type": "string", "format": "date-time"]],
            ],
            "Result": ["type": "object", "properties": ["result": [:]]],
        ],
    ]
}
