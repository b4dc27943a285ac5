import DataAPI
import HTTPTypes
import Hummingbird

/// The dialect endpoints with no LeanCloud twin, under `/2.0/` (where `DialectResponder` sends
/// them, whatever prefix they came with). Each calls the service LeanCloud's nearest route calls,
/// as the caller the one authentication step made, and answers in the dialect's shape; errors are
/// put in that shape by `DialectResponder`.
struct DialectRoutes: Sendable {
    let endpoint: ObjectEndpoint
    let accounts: UserAccounts
    let files: FileService
    /// Whether a file's owner may delete it without the master key (as for `DELETE /files/{id}`).
    let ownersMayDeleteFiles: Bool

    /// Where `DialectResponder` sends a request it refused itself: a path no route serves, so
    /// the router's rate limit and the authentication of unmatched requests
    /// (`UnmatchedRouteMiddleware`) pass before the refusal is answered.
    static let refusalPath = "/2.0/edge-refusal"

    /// Adds the routes under `/2.0` to `routes`, an authenticated group.
    func register(on routes: some RouterMethods<HostRequestContext>) {
        let group = routes.group("2.0")
        // `POST /2.0/updatePassword {"password","newPassword"}` with the session
        // (`DOC:AccountSystem.md:133-152`): LeanCloud's `PUT /users/{id}/updatePassword`.
        group.post("updatePassword") { request, context in
            try Self.requireDialect(context)
            var request = request
            let body = try await request.jsonObject(context: context)
            guard let id = context.caller.userId else {
                throw HostError(status: .unauthorized, code: 90100, message: "Invalid session token.")
            }
            let user = try await accounts.updatePassword(
                id: id, old: body["password"]?.stringValue ?? "", new: body["newPassword"]?.stringValue ?? "",
                caller: context.caller)
            // The old session ends with the old password: the new token rides with the answer.
            return JSONResponse([
                "number": 1, "updatedAt": user["updatedAt"] ?? .null, "sessionToken": user["sessionToken"] ?? .null,
            ])
        }
        // `POST /2.0/classes/{C}/delete {"objectIds":[...]}` (`BAAS:CloudDataResource.java:119-146`):
        // every object checked as a delete first, so one the caller may not delete deletes none;
        // one that doesn't exist is not counted.
        group.post("classes/:className/delete") { request, context in
            try Self.requireDialect(context)
            var request = request
            let body = try await request.jsonObject(context: context)
            let className = try context.parameters.require("className")
            guard case .array(let values)? = body["objectIds"] else {
                throw HostError(status: .badRequest, code: 107, message: "objectIds must be an array of ids.")
            }
            // An id named twice is deleted (and counted) once; every before-hook runs before
            // the first delete, so one refused deletes none. More than
            // `DataService.maxDeleteIds` (MyBaaS's 1000 too) is refused there with 107.
            let ids = values.compactMap(\.stringValue)
            let deleted = try await endpoint.deleteExisting(className, ids: ids, parameters: [:], caller: context.caller)
            return JSONResponse(["number": .int(Int64(deleted))])
        }
        // `DELETE /2.0/classes/{C}/{id}` (and `users/{id}`, `roles/{id}`): `{"number":1}`, or
        // `{"number":0}` for an id with no object (`BAAS:CloudDataBatchResource.java:146-157`).
        group.delete("classes/:className/:objectId") { request, context in
            try Self.requireDialect(context)
            let deleted = try await endpoint.deleteExisting(
                try context.parameters.require("className"), ids: [try context.parameters.require("objectId")],
                parameters: request.queryParameters, caller: context.caller)
            return JSONResponse(["number": .int(Int64(deleted))])
        }
        // `GET /2.0/logout` with the session (`DOC:AccountSystem.md:79-99`): the session ends
        // (`UserAccounts.endSessions`). MaxLeap's docs answer `{"success":true}`; LAS documents no
        // logout, and MyBaaS, the server that reads its headers, answers how many sessions it
        // ended (`BAAS:AppUserResource.java:261-268`).
        for method in [HTTPRequest.Method.get, .post] {
            group.on("logout", method: method) { _, context in
                try Self.requireDialect(context)
                guard let token = context.sessionToken, context.caller.user != nil else {
                    throw HostError(status: .unauthorized, code: 90100, message: "Invalid session token.")
                }
                let ended = try await accounts.endSessions(sessionToken: token, caller: context.caller)
                return JSONResponse(context.dialect == .maxLeap ? ["success": true] : ["number": .int(Int64(ended))])
            }
        }
        // `DELETE /2.0/files` with `X-ML-Fid` (or `X-LAS-Fid`) naming the file
        // (`DOC:CloudData.md:707-719`, `JS:lib/file.js:60-62`): 204, as LeanCloud's file delete
        // would check it.
        group.delete("files") { request, context in
            try Self.requireDialect(context)
            let id = try Self.fileId(request)
            try await files.delete(id: id, caller: context.caller, ownersMayDelete: ownersMayDeleteFiles)
            return Response(status: .noContent)
        }
        // `GET /files` with `X-LAS-Fid` (LAS swagger): `[{name, createTime, url}]`.
        group.get("files") { request, context in
            try Self.requireDialect(context)
            guard let file = try await files.file(id: try Self.fileId(request), caller: context.caller) else {
                throw DataAPIError(.objectNotFound, "Could not find file.")
            }
            let metadata = DialectAnswer.fileMetadata(.object(file.restJSON()))
            return JSONResponse([["name": metadata["name"] ?? .null, "createTime": metadata["createTime"] ?? .null, "url": metadata["url"] ?? .null]])
        }
    }

    /// The `_File` id the request's `X-ML-Fid` / `X-LAS-Fid` names.
    private static func fileId(_ request: Request) throws -> String {
        guard let fid = DialectHeaders.value("fid", in: request.headers), let id = FileName.objectId(in: fid) else {
            throw HostError(status: .badRequest, code: 107, message: "X-ML-Fid names no file.")
        }
        return id
    }

    /// These routes are the dialects' only: a request reaches them through `DialectResponder`.
    private static func requireDialect(_ context: HostRequestContext) throws {
        guard context.dialect != nil else { throw HostError(status: .notFound, code: 404, message: "Not found.") }
    }
}
