import DataAPI
import Foundation
import Hummingbird
import JSON
import NIOCore

/// The file API: `POST /files/{name}` (the bytes as the body, or an external `url` as JSON),
/// `POST /files` (an external URL), `GET|DELETE /files/{id}`, and the token upload:
/// `POST /fileTokens`, `PUT /fileUploads/{token}`, `POST /fileCallback`.
struct FileRoutes: Sendable {
    let files: FileService
    let tokens: FileUploadTokens
    /// Whether a file's owner may delete it without the master key.
    let ownersMayDelete: Bool
    /// The address file URLs start with; nil takes the request's `Host`.
    let publicURL: String?
    /// The file domain new files' URLs are under (`--files-url`); nil puts them under `/files/`.
    var fileDomain: FileDomain?

    /// The largest JSON body read to tell an external file from an upload of JSON bytes.
    private static let externalBodyLimit = 64 * 1024

    func register(on group: RouterGroup<HostRequestContext>) {
        // One parameter name for the three: the router keeps one per position. It is the new
        // file's name for POST, an existing file's id for GET and DELETE.
        group.post("files/:file") { request, context in
            try await upload(request, context: context)
        }
        group.post("files") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            return Self.created(
                try await files.storeExternal(
                    url: body["url"]?.stringValue, Self.draft(from: body, name: nil), caller: context.caller))
        }
        group.get("files/:file") { _, context in
            let id = try context.parameters.require("file")
            guard let file = try await files.file(id: id, caller: context.caller) else {
                throw DataAPIError(.objectNotFound, "Could not find file.")
            }
            return JSONResponse(.object(file.restJSON()))
        }
        group.delete("files/:file") { _, context in
            try await files.delete(id: try context.parameters.require("file"), caller: context.caller, ownersMayDelete: ownersMayDelete)
            return JSONResponse(.object([:]))
        }
        group.post("fileTokens") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            guard let name = body["name"]?.stringValue else {
                throw DataAPIError(.invalidFileName, "A file token needs the file's name.")
            }
            var draft = Self.draft(from: body, name: name)
            draft.keepFileName = body["keep_file_name"] == true
            let issued = try await tokens.issue(draft, key: body["key"]?.stringValue, caller: context.caller)
            let base = LinkBase.forFiles(publicURL: publicURL, context: context)
            let kept = issued.draft.keepFileName ? issued.draft.name : nil
            return JSONResponse([
                "objectId": .string(issued.objectId), "token": .string(issued.token), "key": .string(issued.key),
                "name": .string(issued.draft.name), "mime_type": .string(issued.draft.mimeType),
                "url": .string(urls(context).url(of: issued.key, name: kept)),
                "upload_url": .string("\(base)/1.1/fileUploads/\(issued.token)"),
                "provider": .string(Self.provider(for: body)), "bucket": .string(files.content.provider.bucket),
                "createdAt": .string(ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())),
            ])
        }
        group.post("fileCallback") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            guard let token = body["token"]?.stringValue else {
                throw DataAPIError(.badParameters, "fileCallback needs the upload's token.")
            }
            try await tokens.callback(token: token, succeeded: body["result"] != false)
            return JSONResponse(.object([:]))
        }
    }

    /// The token uploads, for a group outside the authenticated one: the token in the path is
    /// the credential.
    func registerUploads(on group: RouterGroup<HostRequestContext>) {
        group.put("fileUploads/:token") { request, context in
            let object = try await tokens.upload(
                token: try context.parameters.require("token"), urls: urls(context)
            ) { writer in
                try await Self.copy(request.body, to: writer)
            }
            return JSONResponse(["objectId": .string(object.objectId)])
        }
        // The form upload of the `qcloud` (and `qiniu`) uploaders: the file is one part of a
        // multipart body. The token in the path is the credential (`?sign=` repeats it).
        group.post("fileUploads/:token") { request, context in
            guard let boundary = MultipartFileReader.boundary(of: request.headers[.contentType]) else {
                throw DataAPIError(.badParameters, "A form upload needs a multipart/form-data body.")
            }
            let object = try await tokens.upload(
                token: try context.parameters.require("token"), urls: urls(context)
            ) { writer in
                try await MultipartFileReader(boundary: boundary).copyFile(from: request.body, to: writer)
            }
            // COS answers `code: 0`; the Objective-C qcloud uploader checks it.
            return JSONResponse(["code": 0, "objectId": .string(object.objectId)])
        }
    }

    /// `POST /files/{name}`: the body is the file, streamed to disk (never whole in memory),
    /// unless it is the JSON of an external file, as the JS SDK sends one.
    private func upload(_ request: Request, context: HostRequestContext) async throws -> JSONResponse {
        var request = request
        // The name arrives percent-encoded (`r%C3%A9sum%C3%A9.pdf`); decoded, a `/` in it is refused.
        let encoded = try context.parameters.require("file")
        let name = encoded.removingPercentEncoding ?? encoded
        let declared = request.headers[.contentLength].flatMap(Int.init)
        var type = request.headers[.contentType]
        // curl's default for `-d` says nothing about the bytes: the name's extension decides.
        if type?.hasPrefix("application/x-www-form-urlencoded") == true { type = nil }
        let draft = FileService.Draft(name: name, mimeType: type, declaredSize: declared)
        var buffered: ByteBuffer?
        if type?.hasPrefix("application/json") == true, let declared, declared <= Self.externalBodyLimit {
            let buffer = try await request.collectBody(upTo: Self.externalBodyLimit)
            if case .object(let body)? = try? JSONValue(parsing: buffer.readableBytesView),
                let url = body["url"]?.stringValue, body["metaData"]?["__source"] == "external"
            {
                return Self.created(
                    try await files.storeExternal(url: url, Self.draft(from: body, name: name), caller: context.caller))
            }
            buffered = buffer
        }
        let prepared = try await files.prepare(draft, caller: context.caller)
        let object = try await files.store(
            prepared, urls: urls(context), caller: context.caller
        ) { writer in
            if let buffered {
                try await writer.write(buffered)
            } else {
                try await Self.copy(request.body, to: writer)
            }
        }
        return Self.created(object)
    }

    /// Where new files are served: the file domain, else this host's `/files/`.
    private func urls(_ context: HostRequestContext) -> FileURLs {
        fileDomain?.urls ?? .served(at: LinkBase.forFiles(publicURL: publicURL, context: context))
    }

    /// Writes a request body to a file as it arrives.
    private static func copy(_ body: RequestBody, to writer: FileBytesWriter) async throws {
        for try await buffer in body {
            try await writer.write(buffer)
        }
    }

    /// A draft from a JSON body (`name`, `mime_type`, `metaData`, `ACL`).
    private static func draft(from body: [String: JSONValue], name: String?) -> FileService.Draft {
        FileService.Draft(
            name: name ?? body["name"]?.stringValue ?? "file", mimeType: body["mime_type"]?.stringValue,
            metaData: body["metaData"]?.objectValue ?? [:], acl: body["ACL"])
    }

    /// The uploader the SDK is told to use. `s3` (a PUT of the bytes) is what every SDK handles,
    /// but the JS SDK refuses to PUT a stream whose size it wasn't told, and it tells no size for
    /// streams (nor base64 data): without `metaData.size`, `qcloud` (a form POST, no size needed).
    static func provider(for body: [String: JSONValue]) -> String {
        body["metaData"]?["size"]?.isNumber == true ? "s3" : "qcloud"
    }

    private static func created(_ file: StoredObject) -> JSONResponse {
        var headers: HTTPFields = [:]
        if let url = file.fields["url"]?.stringValue { headers[.location] = url }
        return JSONResponse(status: .created, .object(file.restJSON()), headers: headers)
    }
}
