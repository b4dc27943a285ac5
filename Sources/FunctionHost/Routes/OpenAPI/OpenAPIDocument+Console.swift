import DataAPI

extension OpenAPIDocument {
    /// The web console's own routes (`ConsoleRoutes`); the API's routes it reaches again under
    /// `/console/api/1.1` are each operation's `console` mount (`build`).
    static var consoleOperations: [APIOperation] {
        let tag = "Console"
        return [
            APIOperation(
                "get", "/console", prefixed: false, tag: tag, "The web console's page (HTML; log in with the master key).",
                access: .open, answer: nil),
            APIOperation(
                "get", "/console/assets/{name}", prefixed: false, tag: tag,
                "The console's script or style, named by its content's hash and cached for good.", access: .open, answer: nil),
            APIOperation(
                "post", "/console/login", prefixed: false, tag: tag,
                "Log in with masterKey (form or JSON): sets the session cookie and answers the CSRF token (rate-limited per address).",
                access: .open, body: APIOperation.object(["masterKey": "string"], required: ["masterKey"]),
                answer: APIOperation.object(["csrfToken": "string", "expiresAt": "number"])),
            APIOperation(
                "get", "/console/api/session", prefixed: false, tag: tag, "The session's CSRF token and when it ends.",
                access: .console, answer: APIOperation.object(["csrfToken": "string", "expiresAt": "number"])),
            APIOperation(
                "post", "/console/api/logout", prefixed: false, tag: tag, "End the session.", access: .console,
                answer: APIOperation.object(["loggedOut": "boolean"])),
            APIOperation(
                "post", "/console/api/invoke", prefixed: false, tag: tag,
                "Invoke a function in staging or production, as the master key or as the user `user` (an objectId; the host acts for "
                    + "that user for this call, no session token is made): its result or error, and the call's log lines.",
                access: .console,
                body: APIOperation.object(
                    ["function": "string", "params": "object", "environment": "string", "user": "string"], required: ["function"]),
                answer: APIOperation.object(["environment": "string", "result": "object", "error": "object", "logs": "array"])),
            APIOperation(
                "get", "/console/api/metrics", prefixed: false, tag: tag,
                "The host's metrics in Prometheus's text format (as GET /metrics), which the console's charts read.",
                access: .console, answer: nil),
            APIOperation(
                "get", "/console/api/metrics/history", prefixed: false, tag: tag,
                "Each function's and route's calls, errors and latency buckets per minute, the last hour (the console's charts).",
                access: .console, answer: APIOperation.object(["bounds": "array", "minutes": "array"])),
        ]
    }
}
