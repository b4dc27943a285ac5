import JSON

extension OpenAPIDocument {
    /// The routes the LAS and MaxLeap dialects add under `/2.0` (every other `/2.0` and `/3.0`
    /// request is translated into the LeanCloud operation it means, described above).
    static let dialectOperations: [APIOperation] = [
        APIOperation(
            "post", "/2.0/updatePassword", prefixed: false, tag: "Dialects",
            "MaxLeap: change the signed-in user's password ({password: old, newPassword}).",
            body: APIOperation.object(["password": "string", "newPassword": "string"])),
        APIOperation(
            "post", "/2.0/classes/{className}/delete", prefixed: false, tag: "Dialects",
            "MaxLeap: delete objects by id ({objectIds}); every one is checked before the first is deleted.",
            body: APIOperation.object(["objectIds": "array"])),
        APIOperation(
            "delete", "/2.0/classes/{className}/{objectId}", prefixed: false, tag: "Dialects",
            "MaxLeap: delete one object (also users/{id}, roles/{id}); {number: 1}, or 0 when there was none."),
        APIOperation(
            "get", "/2.0/logout", prefixed: false, tag: "Dialects",
            "MaxLeap: end the session's user's sessions; {success: true} (LAS: {number: 1})."),
        APIOperation(
            "post", "/2.0/logout", prefixed: false, tag: "Dialects",
            "MaxLeap: as GET /2.0/logout."),
        APIOperation(
            "delete", "/2.0/files", prefixed: false, tag: "Dialects",
            "MaxLeap: delete the file named by the X-ML-Fid (or X-LAS-Fid) header (204).", success: "204",
            answer: nil),
        APIOperation(
            "get", "/2.0/files", prefixed: false, tag: "Dialects",
            "LAS: the metadata of the file named by X-LAS-Fid (or X-ML-Fid), or of every file.",
            answer: ["type": "array", "items": ["type": "object"]]),
    ]
}
