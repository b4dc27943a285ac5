import DataAPI

extension OpenAPIDocument {
    /// Cloud functions, rpc, hook endpoints and the engine's own routes.
    static let functionOperations: [APIOperation] = ["post", "get", "put"].flatMap { method in
        [
            APIOperation(
                method, "/functions/{name}", tag: "Functions", "Call a cloud function (plain JSON in and out).",
                body: method == "get" ? nil : APIOperation.object([:]), answer: APIOperation.ref("Result")),
            APIOperation(
                method, "/call/{name}", tag: "Functions", "Call a cloud function as rpc (typed values kept).",
                body: method == "get" ? nil : APIOperation.object([:]), answer: APIOperation.ref("Result")),
        ]
    } + [
        APIOperation(
            "get", "/functions/_ops/metadatas", tag: "Functions", "Every function's and hook's name (master key).",
            access: .master, answer: APIOperation.ref("Result")),
        APIOperation(
            "post", "/functions/{name}/{hook}", tag: "Functions",
            "A hook as a storage service calls it: {Class}/beforeSave ..., onVerified/sms, _User/onLogin (hook key).",
            access: .hookKey, body: APIOperation.object(["object": "object"])),
        APIOperation("get", "/__engine/1/ping", prefixed: false, tag: "Engine", "Health check: ready once storage and code are.", access: .open),
        APIOperation("get", "/__engine/1.1/ping", prefixed: false, tag: "Engine", "Health check.", access: .open),
        APIOperation("get", "/", prefixed: false, tag: "Engine", "The server's name.", access: .open, answer: nil),
        APIOperation("get", "/openapi.json", prefixed: false, tag: "Engine", "This document.", access: .open),
        APIOperation(
            "get", "/v1/route", prefixed: false, tag: "LiveQuery",
            "Where the realtime (LiveQuery) WebSocket is: {server, secondary, ttl}; the SDKs ask it first, without keys.",
            access: .open),
        APIOperation("get", "/metrics", prefixed: false, tag: "Engine", "Prometheus metrics (master key).", access: .master, answer: nil),
    ]

    /// Deploys, environments, variables and logs (master key).
    static let engineOperations: [APIOperation] = [
        APIOperation(
            "post", "/engine/deploys", tag: "Deploys",
            "Deploy JavaScript files, or an engine app's folder (engine: {files: {path: base64}, command}), as a new version of an environment.",
            access: .master,
            body: APIOperation.object(["environment": "string", "message": "string", "files": "object", "engine": "object", "author": "string"]),
            success: "201"),
        APIOperation(
            "get", "/engine/deploys", tag: "Deploys", "The versions, newest first.", access: .master,
            query: [.init(name: "environment", type: "string", description: "Only the versions it has run.")],
            answer: APIOperation.ref("Results")),
        APIOperation("get", "/engine/environments", tag: "Deploys", "What each environment runs.", access: .master),
        APIOperation(
            "post", "/engine/promote", tag: "Deploys", "Make production run staging's version.", access: .master,
            body: APIOperation.object([:])),
        APIOperation(
            "post", "/engine/rollback", tag: "Deploys", "Return an environment to an earlier version.", access: .master,
            body: APIOperation.object(["environment": "string", "version": "integer"], required: ["environment"])),
        APIOperation(
            "get", "/engine/variables", tag: "Deploys", "An environment's variables (secrets masked).", access: .master,
            query: [.init(name: "environment", type: "string", description: "production or staging.")]),
        APIOperation(
            "put", "/engine/variables", tag: "Deploys", "Set or remove an environment's variables.", access: .master,
            body: APIOperation.object(["environment": "string", "set": "object", "unset": "array", "secret": "boolean"], required: ["environment"])),
        APIOperation(
            "get", "/engine/logs", tag: "Deploys", "An environment's recent function and hook log lines.", access: .master,
            query: [
                .init(name: "environment", type: "string", description: "production or staging."),
                .init(name: "after", type: "integer", description: "Only lines after this sequence number."),
                .init(name: "limit", type: "integer", description: "At most this many (1-1000, default 100)."),
            ], answer: APIOperation.ref("Results")),
        APIOperation(
            "post", "/engine/app/reload", tag: "Deploys",
            "Ask an environment's own engine (both, without one) for its functions and hooks again; answers each one's names and those defined in process too.",
            access: .master, body: APIOperation.object(["environment": "string"])),
    ]

    /// Files: uploads, tokens, metadata and downloads.
    static let fileOperations: [APIOperation] = [
        APIOperation(
            "post", "/files/{file}", tag: "Files", "Upload a file: the body is its bytes (or the JS SDK's JSON for an external file).",
            body: ["type": "string", "format": "binary"], success: "201"),
        APIOperation(
            "post", "/files", tag: "Files", "Record an external file by its url.",
            body: APIOperation.object(["name": "string", "url": "string", "mime_type": "string", "metaData": "object"], required: ["url"]),
            success: "201"),
        APIOperation("get", "/files/{file}", tag: "Files", "A file's _File object."),
        APIOperation("delete", "/files/{file}", tag: "Files", "Delete a file (master key, or its owner when allowed)."),
        APIOperation(
            "post", "/fileTokens", tag: "Files", "Get a token and an upload url for a file.",
            body: APIOperation.object([
                "name": "string", "mime_type": "string", "metaData": "object", "ACL": "object", "keep_file_name": "boolean",
                "key": "string",
            ])),
        APIOperation(
            "put", "/fileUploads/{token}", tag: "Files", "Upload a token's bytes (the token is the credential).", access: .open,
            body: ["type": "string", "format": "binary"]),
        APIOperation(
            "post", "/fileUploads/{token}", tag: "Files",
            "Upload a token's bytes as the file part of a multipart form (the qcloud and qiniu uploaders).", access: .open,
            body: ["type": "string", "format": "binary"]),
        APIOperation(
            "post", "/fileCallback", tag: "Files", "Report a token upload's result (false removes the file).",
            body: APIOperation.object(["token": "string", "result": "boolean"], required: ["token"])),
        APIOperation("get", "/files/{key}", prefixed: false, tag: "Files", "A file's bytes (its url): ranges, ETag; an image's thumbnail with the query imageView2/<mode 0-5>/w/<w>/h/<h>/q/<q>/format/<jpg,png,webp,gif> (or imageView/<1,2>/...).", access: .open, answer: nil),
        APIOperation("head", "/files/{key}", prefixed: false, tag: "Files", "A file's headers.", access: .open, answer: nil),
        APIOperation("get", "/files/{key}/{name}", prefixed: false, tag: "Files", "A file's bytes, under a name.", access: .open, answer: nil),
    ]
}
