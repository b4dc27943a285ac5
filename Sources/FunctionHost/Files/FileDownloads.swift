import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Serves stored files at their permanent URLs, `/files/{key}`, to anyone who has the URL (as
/// LeanCloud's file domains do): the type and size they were stored with, an `ETag`, and
/// single byte ranges; with an `imageView` query, an image's thumbnail (`FileThumbnails`).
/// Files never change, so they may be cached for good. Types a browser would run are
/// downloaded, never opened (`FileContentHeaders`).
struct FileDownloads: Sendable {
    let files: FileService
    /// Thumbnails of image files, asked for by the URL's query (`FileThumbnails`).
    let thumbnails: FileThumbnails
    /// Whether a file is answered with a redirect to its store's presigned URL, when the store
    /// hands them out, rather than streamed through the host (`--files-redirect`).
    var redirects = false

    /// How long a redirect's presigned URL works: long enough to follow it (and resume a
    /// download for a while), short enough that a leaked one soon stops working.
    static let redirectExpiry = Duration.seconds(300)

    /// A stored file (and its thumbnails) is never changed: cached for good.
    static let cacheControl = "public, max-age=31536000, immutable"

    func register(on router: Router<HostRequestContext>) {
        router.get("files/:key") { request, context in
            try await serve(request, key: try context.parameters.require("key"), client: context.clientAddress, sendsBody: true)
        }
        router.head("files/:key") { request, context in
            try await serve(request, key: try context.parameters.require("key"), client: context.clientAddress, sendsBody: false)
        }
        // The name after the key is for people and browsers' downloads; the key finds the file.
        router.get("files/:key/:name") { request, context in
            try await serve(request, key: try context.parameters.require("key"), client: context.clientAddress, sendsBody: true)
        }
    }

    /// The `_File` object of a key. A URL names no environment: production's objects first, then
    /// staging's (the same database unless staging has its own).
    private func stored(_ key: String) async throws -> StoredObject? {
        for environment in EnvironmentName.allCases {
            let found = try await files.file(key: key, in: environment)
            if let found { return found }
        }
        return nil
    }

    /// The file stored under `key`, as `GET` (or `HEAD`) answers it, on `/files/` or on the file domain.
    func serve(_ request: Request, key: String, client: String?, sendsBody: Bool) async throws -> Response {
        let store = files.content
        guard let file = try await stored(key), let size = try await store.size(ofKey: key) else {
            throw HostError(status: .notFound, code: 404, message: "File not found.")
        }
        if let query = request.uri.query, !query.isEmpty,
            let thumbnail = try await thumbnails.answer(
                request, query: query, key: key, file: file, size: size, store: store, client: client ?? "unknown", sendsBody: sendsBody)
        {
            return thumbnail
        }
        var headers: HTTPFields = [:]
        // On every answer, 304 and 206 included: a cached or partial page must not run either.
        FileContentHeaders.apply(
            storedType: file.fields["mime_type"]?.stringValue, name: file.fields["name"]?.stringValue, to: &headers)
        if redirects,
            let url = store.downloadURL(
                ofKey: key, expiry: Self.redirectExpiry, contentType: headers[.contentType] ?? "application/octet-stream",
                disposition: headers[.contentDisposition])
        {
            // A new URL each time, valid minutes: the redirect itself is never cached. The
            // bucket answers with the type and disposition the host would have sent.
            return Response(status: .found, headers: [.location: url, .cacheControl: "no-store"])
        }
        headers[.acceptRanges] = "bytes"
        headers[.cacheControl] = Self.cacheControl
        let etag = file.fields["metaData"]?["_checksum"]?.stringValue.map { "\"\($0)\"" }
        if let notModified = Self.notModified(request, etag: etag, headers: &headers) { return notModified }
        var status = HTTPResponse.Status.ok
        var range = ByteRange(start: 0, end: size - 1)
        // A range is served only for the version it was asked of (`If-Range`).
        let ifRange = request.headers[.ifRange]
        if ifRange == nil || ifRange == etag {
            switch ByteRange.parse(request.headers[.range], size: size) {
            case .whole: break
            case .range(let asked):
                range = asked
                status = .partialContent
                headers[.contentRange] = "bytes \(asked.start)-\(asked.end)/\(size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                headers[.contentLength] = "0"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        let length = max(0, range.count)
        headers[.contentLength] = String(length)
        guard sendsBody, length > 0 else { return Response(status: status, headers: headers, body: .init()) }
        // Opened before the answer starts: a store that fails now is answered as a failure, not
        // with a cut body.
        guard let stream = try await store.read(key: key, range: range.start...range.end) else {
            throw HostError(status: .notFound, code: 404, message: "File not found.")
        }
        return Response(status: status, headers: headers, body: Self.body(of: stream))
    }

    /// A stored range's bytes as the answer's body, written as they are read.
    static func body(of stream: FileContentStream) -> ResponseBody {
        ResponseBody(contentLength: stream.length) { writer in
            try await stream.forEach { try await writer.write($0) }
            try await writer.finish(nil)
        }
    }

    /// Sets the `ETag`, and answers 304 (no body) when the client's `If-None-Match` names it
    /// (`EntityTag.matches`: `*`, a list, weak comparison).
    static func notModified(_ request: Request, etag: String?, headers: inout HTTPFields) -> Response? {
        guard let etag else { return nil }
        headers[.eTag] = etag
        guard EntityTag.ifNoneMatch(request.headers[values: .ifNoneMatch], matches: etag) else { return nil }
        return Response(status: .notModified, headers: headers)
    }
}
