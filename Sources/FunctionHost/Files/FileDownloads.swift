import DataAPI
import Foundation
import Hummingbird
import NIOCore

/// Serves stored files at their permanent URLs, `/files/{key}`, to anyone who has the URL (as
/// LeanCloud's file domains do): the type and size they were stored with, an `ETag`, and
/// single byte ranges. Files never change, so they may be cached for good. Types a browser
/// would run are downloaded, never opened (`FileContentHeaders`).
struct FileDownloads: Sendable {
    let files: FileService

    /// The bytes read from disk at a time: a large file never sits whole in memory.
    static let chunkSize = 256 * 1024

    func register(on router: Router<HostRequestContext>) {
        router.get("files/:key") { request, context in
            try await serve(request, key: try context.parameters.require("key"), sendsBody: true)
        }
        router.head("files/:key") { request, context in
            try await serve(request, key: try context.parameters.require("key"), sendsBody: false)
        }
        // The name after the key is for people and browsers' downloads; the key finds the file.
        router.get("files/:key/:name") { request, context in
            try await serve(request, key: try context.parameters.require("key"), sendsBody: true)
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

    private func serve(_ request: Request, key: String, sendsBody: Bool) async throws -> Response {
        guard let file = try await stored(key), let content = try files.content.content(forKey: key) else {
            throw HostError(status: .notFound, code: 404, message: "File not found.")
        }
        var headers: HTTPFields = [:]
        // On every answer, 304 and 206 included: a cached or partial page must not run either.
        FileContentHeaders.apply(
            storedType: file.fields["mime_type"]?.stringValue, name: file.fields["name"]?.stringValue, to: &headers)
        headers[.acceptRanges] = "bytes"
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        let etag = file.fields["metaData"]?["_checksum"]?.stringValue.map { "\"\($0)\"" }
        if let etag {
            headers[.eTag] = etag
            if let match = request.headers[.ifNoneMatch], match == etag || match == "*" {
                return Response(status: .notModified, headers: headers)
            }
        }
        var status = HTTPResponse.Status.ok
        var range = ByteRange(start: 0, end: content.size - 1)
        // A range is served only for the version it was asked of (`If-Range`).
        let ifRange = request.headers[.ifRange]
        if ifRange == nil || ifRange == etag {
            switch ByteRange.parse(request.headers[.range], size: content.size) {
            case .whole: break
            case .range(let asked):
                range = asked
                status = .partialContent
                headers[.contentRange] = "bytes \(asked.start)-\(asked.end)/\(content.size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(content.size)"
                headers[.contentLength] = "0"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        let length = max(0, range.count)
        headers[.contentLength] = String(length)
        guard sendsBody, length > 0 else { return Response(status: status, headers: headers, body: .init()) }
        let path = content.path
        let start = range.start
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: length) { writer in
                guard let handle = FileHandle(forReadingAtPath: path) else {
                    throw HostError(status: .notFound, code: 404, message: "File not found.")
                }
                defer { try? handle.close() }
                try handle.seek(toOffset: UInt64(start))
                var left = length
                while left > 0 {
                    let data = try handle.read(upToCount: min(Self.chunkSize, left)) ?? Data()
                    guard !data.isEmpty else { break }
                    left -= data.count
                    try await writer.write(ByteBuffer(bytes: data))
                }
                try await writer.finish(nil)
            })
    }
}
