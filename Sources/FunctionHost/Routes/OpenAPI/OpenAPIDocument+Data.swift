import DataAPI
import JSON

extension OpenAPIDocument {
    /// A batch body (`/batch`, `/batch/save`): `{"requests": [items]}`.
    private static func batchBody(items: JSONValue) -> JSONValue {
        ["type": "object", "required": ["requests"], "properties": ["requests": ["type": "array", "items": items]]]
    }

    /// Objects, queries, batch, CQL, scan and schemas.
    static let objectOperations: [APIOperation] = [
        APIOperation(
            "post", "/classes/{className}", tag: "Objects", "Create an object (201, Location).",
            query: APIOperation.fetchParameters + [APIOperation.writeParameters[0]], body: APIOperation.object([:]),
            success: "201", answer: APIOperation.ref("Created")),
        APIOperation(
            "get", "/classes/{className}", tag: "Objects", "Query a class.", query: APIOperation.findParameters,
            answer: APIOperation.ref("Results")),
        APIOperation("get", "/classes/{className}/{objectId}", tag: "Objects", "Fetch an object.", query: APIOperation.fetchParameters),
        APIOperation(
            "post", "/classes/{className}/{objectId}", tag: "Objects",
            "A query or fetch sent as POST with _method (GET, PUT or DELETE) in a text/plain body.",
            body: APIOperation.object(["_method": "string"])),
        APIOperation(
            "put", "/classes/{className}/{objectId}", tag: "Objects",
            "Update an object: values and operations ({\"__op\": \"Increment\", ...}).", query: APIOperation.writeParameters,
            body: APIOperation.object([:])),
        APIOperation(
            "delete", "/classes/{className}/{objectId}", tag: "Objects", "Delete an object.",
            query: [APIOperation.writeParameters[1]]),
        APIOperation(
            "post", "/batch", tag: "Objects", "Run several requests; each answers {success} or {error}.",
            body: batchBody(
                items: [
                    "type": "object",
                    "properties": ["method": ["type": "string"], "path": ["type": "string"], "body": ["type": "object"]],
                ]),
            answer: ["type": "array", "items": ["type": "object"]]),
        APIOperation(
            "post", "/batch/save", tag: "Objects",
            "Save several objects as the iOS SDKs do: items keyed by body.__internalId, children pointed to by"
                + " __children; one answer keyed by __internalId, any failure fails the whole call.",
            body: batchBody(
                items: [
                    "type": "object", "required": ["method", "path", "body"],
                    "properties": [
                        "method": ["type": "string", "enum": ["POST", "PUT"]], "path": ["type": "string"],
                        "body": ["type": "object"], "new": ["type": "boolean"], "params": ["type": "object"],
                    ],
                ]),
            answer: ["type": "object", "additionalProperties": ["type": "object"]]),
        APIOperation(
            "get", "/cloudQuery", tag: "Objects", "Run a CQL statement.",
            query: [
                .init(name: "cql", type: "string", description: "select ... from Class where ...", required: true),
                .init(name: "pvalues", type: "string", description: "A JSON array of values for the ? placeholders."),
            ], answer: APIOperation.ref("Results")),
        APIOperation(
            "post", "/cloudQuery", tag: "Objects", "Run a CQL statement given in the body.",
            body: APIOperation.object(["cql": "string", "pvalues": "array"]), answer: APIOperation.ref("Results")),
        APIOperation(
            "post", "/LiveQuery/subscribe", tag: "Objects",
            "Subscribe to a query's changes (LiveQuery): body {query: {className, where, keys?, returnACL?}, id, sessionToken?};"
                + " answers {id, query_id}, the same query_id for the same id and query.",
            body: APIOperation.object(["query": "object", "id": "string", "sessionToken": "string"]),
            answer: APIOperation.object(["id": "string", "query_id": "string"])),
        APIOperation(
            "post", "/LiveQuery/unsubscribe", tag: "Objects", "End a LiveQuery subscription: body {id, query_id}.",
            body: APIOperation.object(["id": "string", "query_id": "string"])),
        APIOperation(
            "get", "/scan/classes/{className}", tag: "Objects", "Walk a class a page at a time (master key).", access: .master,
            query: [
                .init(name: "limit", type: "integer", description: "Objects a page (1-1000, default 100)."),
                .init(name: "cursor", type: "string", description: "The previous page's cursor."),
                .init(name: "where", type: "string", description: "A JSON filter."),
                .init(
                    name: "scan_key", type: "string",
                    description: "The order: objectId (default), createdAt, updatedAt or a Number, String or Date field; -key descends."),
            ], answer: APIOperation.ref("Results")),
        APIOperation("get", "/schemas", tag: "Objects", "Every class and its fields' types (master key).", access: .master),
        APIOperation("get", "/schemas/{className}", tag: "Objects", "One class's fields' types (master key).", access: .master),
        APIOperation("get", "/schemas/{className}/permissions", tag: "Objects", "One class's class- and field-level permissions (master key).", access: .master),
        APIOperation("post", "/schemas", tag: "Objects", "Create a class with no objects: Parse's {\"className\", \"fields\", \"classLevelPermissions\"} (master key).", access: .master, body: APIOperation.object(["className": "string", "fields": "object", "classLevelPermissions": "object", "permissions": "object"])),
        APIOperation("post", "/schemas/{className}", tag: "Objects", "Create a class with no objects: Parse's {\"fields\", \"classLevelPermissions\"} or LeanCloud's permissions (master key).", access: .master, body: APIOperation.object(["className": "string", "fields": "object", "classLevelPermissions": "object", "permissions": "object"])),
        APIOperation("put", "/schemas/{className}", tag: "Objects", "Set a class's permissions (making the class when it doesn't exist): LeanCloud's {\"permissions\", \"schema\"} export shape, or Parse's fields and classLevelPermissions (master key).", access: .master, body: APIOperation.object(["permissions": "object", "schema": "object", "fields": "object", "classLevelPermissions": "object"])),
        APIOperation("get", "/date", tag: "Objects", "The server's clock, as a Date.", access: .open),
        APIOperation(
            "get", "/search/select", tag: "Objects",
            "Full-text search (LeanCloud's in-app search): answers {results (with _app_url, _deeplink, _highlight), hits, sid}.",
            query: ["q", "clazz", "limit", "skip", "sid", "fields", "highlights", "include", "order", "sort", "returnACL"].map {
                .init(name: $0, type: $0 == "limit" || $0 == "skip" ? "integer" : "string", description: "As LeanCloud's /search/select.")
            }, answer: APIOperation.object(["results": "array", "hits": "integer", "sid": "string"])),
        APIOperation("get", "/search/classes", tag: "Objects", "The classes search is on for, and their fields (master key).", access: .master),
        APIOperation(
            "put", "/search/classes/{className}", tag: "Objects", "Turn search on for a class's fields, or change them (master key).",
            access: .master, body: APIOperation.object(["fields": "array"], required: ["fields"])),
        APIOperation("delete", "/search/classes/{className}", tag: "Objects", "Turn search off for a class (master key).", access: .master),
    ]

    /// Users, sessions, roles and verification.
    static let userOperations: [APIOperation] = [
        APIOperation(
            "post", "/users", tag: "Users", "Sign up, or sign up or log in with authData.",
            body: APIOperation.object(["username": "string", "password": "string", "email": "string", "mobilePhoneNumber": "string", "authData": "object"]),
            success: "201"),
        APIOperation("get", "/users", tag: "Users", "Query users (master key, unless user queries are open).", query: APIOperation.findParameters, answer: APIOperation.ref("Results")),
        APIOperation("get", "/users/me", tag: "Users", "The user of the session: session_token in the query, else X-LC-Session."),
        APIOperation("get", "/users/{objectId}", tag: "Users", "Fetch a user.", query: APIOperation.fetchParameters),
        APIOperation("put", "/users/{objectId}", tag: "Users", "Update a user (itself, or with the master key).", body: APIOperation.object([:])),
        APIOperation("delete", "/users/{objectId}", tag: "Users", "Delete a user (itself, or with the master key)."),
        APIOperation("put", "/users/{objectId}/refreshSessionToken", tag: "Users", "Give the user a new session token."),
        APIOperation(
            "put", "/users/{objectId}/updatePassword", tag: "Users", "Change the password, given the old one.",
            body: APIOperation.object(["old_password": "string", "new_password": "string"], required: ["old_password", "new_password"])),
        APIOperation(
            "post", "/login", tag: "Users", "Log in by username, email or phone number with a password, or a phone number with an SMS code.",
            body: APIOperation.object(["username": "string", "email": "string", "mobilePhoneNumber": "string", "password": "string", "smsCode": "string"])),
        APIOperation(
            "post", "/users/login", tag: "Users", "Log in (the same as /login).",
            body: APIOperation.object(["username": "string", "password": "string"])),
        APIOperation("post", "/logout", tag: "Users", "Log out, as LeanCloud's SDKs do: the session's token keeps working (one token per user); refreshSessionToken ends it."),
        APIOperation(
            "post", "/usersByMobilePhone", tag: "Users", "Sign up or log in with a phone number and an SMS code.",
            body: APIOperation.object(["mobilePhoneNumber": "string", "smsCode": "string"], required: ["mobilePhoneNumber", "smsCode"])),
        APIOperation("post", "/roles", tag: "Roles", "Create a role (name unique).", body: APIOperation.object(["name": "string", "ACL": "object"]), success: "201", answer: APIOperation.ref("Created")),
        APIOperation("get", "/roles", tag: "Roles", "Query roles.", query: APIOperation.findParameters, answer: APIOperation.ref("Results")),
        APIOperation("get", "/roles/{objectId}", tag: "Roles", "Fetch a role.", query: APIOperation.fetchParameters),
        APIOperation("put", "/roles/{objectId}", tag: "Roles", "Update a role: its users and roles relations.", body: APIOperation.object([:])),
        APIOperation("delete", "/roles/{objectId}", tag: "Roles", "Delete a role."),
    ] + verificationOperations

    /// Codes by SMS and links by email.
    static let verificationOperations: [APIOperation] = [
        APIOperation("post", "/requestSmsCode", tag: "Verification", "Send a six-digit code to a phone number (name and op only as configured); template names an operator's template (templates/sms/NAME.txt), whose variables are the body's other members; sign an allowed signature; smsType sms or voice.", body: APIOperation.object(["mobilePhoneNumber": "string", "ttl": "integer", "name": "string", "op": "string", "validate_token": "string", "template": "string", "sign": "string", "smsType": "string"], required: ["mobilePhoneNumber"])),
        APIOperation("post", "/verifySmsCode/{code}", tag: "Verification", "Check an SMS code.", body: APIOperation.object(["mobilePhoneNumber": "string"], required: ["mobilePhoneNumber"])),
        APIOperation("post", "/requestMobilePhoneVerify", tag: "Verification", "Send a code that verifies a user's phone number.", body: APIOperation.object(["mobilePhoneNumber": "string"], required: ["mobilePhoneNumber"])),
        APIOperation("post", "/verifyMobilePhone/{code}", tag: "Verification", "Verify the phone number the code was sent to.", body: APIOperation.object([:])),
        APIOperation("post", "/requestLoginSmsCode", tag: "Verification", "Send a login code.", body: APIOperation.object(["mobilePhoneNumber": "string"], required: ["mobilePhoneNumber"])),
        APIOperation("post", "/requestPasswordResetBySmsCode", tag: "Verification", "Send a password reset code.", body: APIOperation.object(["mobilePhoneNumber": "string"], required: ["mobilePhoneNumber"])),
        APIOperation("put", "/resetPasswordBySmsCode/{code}", tag: "Verification", "Set a new password with a reset code.", body: APIOperation.object(["password": "string", "mobilePhoneNumber": "string"], required: ["password"])),
        APIOperation("post", "/resetPasswordBySmsCode/{code}", tag: "Verification", "Set a new password with a reset code (POST form).", body: APIOperation.object(["password": "string", "mobilePhoneNumber": "string"])),
        APIOperation("post", "/requestChangePhoneNumber", tag: "Verification", "Send a code to a new phone number (with the session).", body: APIOperation.object(["mobilePhoneNumber": "string", "ttl": "integer"], required: ["mobilePhoneNumber"])),
        APIOperation("post", "/changePhoneNumber", tag: "Verification", "Change the user's phone number with the code.", body: APIOperation.object(["mobilePhoneNumber": "string", "code": "string"], required: ["mobilePhoneNumber", "code"])),
        APIOperation("post", "/requestEmailVerify", tag: "Verification", "Send a verification link to an email address.", body: APIOperation.object(["email": "string"], required: ["email"])),
        APIOperation("post", "/requestPasswordReset", tag: "Verification", "Send a password reset link to an email address.", body: APIOperation.object(["email": "string"], required: ["email"])),
        APIOperation("get", "/emailVerify/{token}", tag: "Verification", "The page an email's verification link opens.", access: .open, answer: nil),
        APIOperation("get", "/resetPassword/{token}", tag: "Verification", "The page an email's reset link opens: a form.", access: .open, answer: nil),
        APIOperation("post", "/resetPassword/{token}", tag: "Verification", "The reset form's answer (form-encoded password).", access: .open, answer: nil),
        APIOperation("get", "/requestCaptcha", tag: "Verification", "A captcha: {captcha_token, captcha_url} (size and ttl with the master key).", query: captchaParameters),
        APIOperation("post", "/verifyCaptcha", tag: "Verification", "Check a captcha's text: {validate_token} for one SMS request.", body: APIOperation.object(["captcha_code": "string", "captcha_token": "string"], required: ["captcha_code", "captcha_token"])),
        APIOperation("get", "/captchaImage", tag: "Verification", "A captcha's PNG image (its token is the credential).", access: .open, query: [APIOperation.Parameter(name: "token", type: "string", description: "The captcha_token.")], answer: nil),
    ]

    /// `requestCaptcha`'s parameters, with LeanCloud's ranges.
    static let captchaParameters: [APIOperation.Parameter] = [
        APIOperation.Parameter(name: "width", type: "integer", description: "Pixels, 60 to 200 (85)."),
        APIOperation.Parameter(name: "height", type: "integer", description: "Pixels, 30 to 100 (30)."),
        APIOperation.Parameter(name: "size", type: "integer", description: "Characters, 3 to 6 (4); master key."),
        APIOperation.Parameter(name: "ttl", type: "integer", description: "Seconds, 10 to 180 (60); master key."),
    ]
}
