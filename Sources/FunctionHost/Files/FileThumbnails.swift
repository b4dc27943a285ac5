import DataAPI
import Foundation
import Hummingbird
import Thumbnails

/// Thumbnails at a file's URL, as LeanCloud's Qiniu-hosted files answered them:
/// `/files/{key}?imageView2/2/w/100/h/100` (the SDKs' `thumbnailURL`/`getThumbnail` ask for
/// `imageView/1|2/...`). Open to anyone with the URL, as the file is. A failure is answered as
/// Qiniu answers one: `{"code","error"}` with the HTTP status as the code, `no-store`.
struct FileThumbnails: Sendable {
    let store: ThumbnailStore

    /// The answer to `query`; nil when it asks for no thumbnail, or when making one failed and
    /// the URL said `ignore-error/1` (the original is answered then). `client` (the address the
    /// rate limits key on) is who the slot it is made in is counted against.
    func answer(
        _ request: Request, query: String, key: String, file: StoredObject, size: Int, store content: any FileContentStore,
        client: String, sendsBody: Bool
    ) async throws -> Response? {
        let spec: ThumbnailSpec
        do {
            guard let parsed = try ThumbnailSpec.parse(query: query) else { return nil }
            spec = parsed
        } catch {
            return try Self.failure(error)
        }
        var headers: HTTPFields = [:]
        // A thumbnail of one version of one file never changes: cached as the file is.
        headers[.cacheControl] = FileDownloads.cacheControl
        let etag = file.fields["metaData"]?["_checksum"]?.stringValue.map { "\"\($0)/\(spec.normalized)\"" }
        if let notModified = FileDownloads.notModified(request, etag: etag, headers: &headers) { return notModified }
        let hit: ThumbnailCache.Hit
        do {
            // The object's id tells this file from one stored under the same key before it
            // was deleted; the checksum, its bytes.
            let version = "\(file.objectId)/\(file.fields["metaData"]?["_checksum"]?.stringValue ?? "")"
            let original = Original(store: content, key: key, size: size, temporary: store.cache.temporaryPath())
            defer { original.discard() }
            let limits = store.thumbnailer.limits
            hit = try await store.thumbnail(
                ofFile: key, version: version, original: { () throws(ThumbnailError) in try await original.path(limits: limits) },
                spec: spec, for: client)
        } catch {
            // Deleted while its thumbnail waited for a slot: answered as a missing file is,
            // with or without `ignore-error/1` (there is no original left to answer).
            if error.kind == .storage, (try? await content.size(ofKey: key)) == nil {
                throw HostError(status: .notFound, code: 404, message: "File not found.")
            }
            if spec.ignoresErrors, error.kind != .storage { return nil }
            return try Self.failure(error)
        }
        FileContentHeaders.apply(storedType: hit.format.mimeType, name: nil, to: &headers)
        headers[.contentLength] = String(hit.size)
        guard sendsBody, hit.size > 0 else {
            try? hit.handle.close()
            return Response(status: .ok, headers: headers, body: .init())
        }
        return Response(status: .ok, headers: headers, body: FileDownloads.body(of: .reading(hit.handle, from: 0, length: hit.size)))
    }

    /// A thumbnail's original as a path libvips reads: the store's own file, or one fetched
    /// from a remote store into a temporary file, removed once the thumbnail is made. A remote
    /// original is fetched only when its size is one a thumbnail is made of and its first bytes
    /// are an image's: a thumbnail URL of any large file must not cost the store a 20 MB read.
    private struct Original: Sendable {
        let store: any FileContentStore
        let key: String
        let size: Int
        let temporary: String

        func path(limits: ThumbnailLimits) async throws(ThumbnailError) -> String {
            if let local = store.localPath(ofKey: key) { return local }
            try limits.checkSource(size: size)
            do {
                guard try await startsAsImage() else {
                    // Its own words: the answer tells that the original was never fetched.
                    throw ThumbnailError(.notAnImage, "The file does not start as an image thumbnails are made of (JPEG, PNG, WebP, GIF, HEIF).")
                }
                // One byte past the largest: an original replaced by a larger one since its size
                // was read is still seen, and refused, by the thumbnailer.
                guard try await store.copy(key: key, to: temporary, limit: limits.maxSourceBytes + 1) else {
                    throw ThumbnailError(.storage, "The original is gone.")
                }
            } catch let error as ThumbnailError {
                throw error
            } catch {
                throw ThumbnailError(.storage, "Could not fetch the original: \(error)")
            }
            return temporary
        }

        /// Whether the original's first bytes are an image's (`ImageSignature`); false for a
        /// missing or shorter one.
        private func startsAsImage() async throws -> Bool {
            let length = ImageSignature.length
            guard size >= length, let stream = try await store.read(key: key, range: 0...(length - 1)) else { return false }
            var head: [UInt8] = []
            try await stream.forEach { head += $0.readableBytesView }
            return ImageSignature.matches(head)
        }

        func discard() {
            try? FileManager.default.removeItem(atPath: temporary)
        }
    }

    /// Qiniu's error answer; a failure of the server's own disk is thrown on, to the log and a 500.
    private static func failure(_ error: ThumbnailError) throws -> Response {
        guard let answer = HostError(mapping: error) else { throw error }
        var response = answer.response
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
