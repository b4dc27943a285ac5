import AsyncHTTPClient
import Crypto
import DataAPI
import Foundation
import NIOCore
import NIOHTTP1

/// The S3 operations the file store needs, on one bucket, each request signed (`SigV4`) and
/// bounded in time. A missing object is nil, never an error; every other refusal is an
/// `S3Error` that names S3's own error code.
struct S3Client: Sendable {
    let settings: S3Settings
    private let signer: SigV4

    /// How long a request may take to its answer's head; a body then streams at its own pace,
    /// each read bounded by the client's read timeout.
    static let timeout = TimeAmount.seconds(60)
    /// The most of an error or XML answer that is read.
    static let answerLimit = 64 * 1024

    /// Two clients for the process, their connections pooled across requests: one for the
    /// objects' bodies a download streams (held as long as its reader takes), one for every other
    /// call (HEAD before each download, uploads, deletes), so downloads slow readers keep open
    /// can't leave the others waiting for a connection (8, the client's default, were held by 8
    /// slow readers and every file operation failed). No redirects (a store that redirects is
    /// misconfigured: the region), no decompression, and connect and read timeouts so an
    /// unresponsive store costs a clear error, never a hang. A `static let` is never
    /// deinitialised, so it needs no shutdown.
    private static let http = makeClient(connections: 64, read: .seconds(30))
    /// A body's reads wait while the host's client pauses its download (the host reads the
    /// store only as fast as its client takes the bytes): 10 minutes, not 30 s, before a
    /// paused download is cut.
    private static let bodies = makeClient(connections: 512, read: .minutes(10))

    private static func makeClient(connections: Int, read: TimeAmount) -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
        configuration.timeout = .init(connect: .seconds(10), read: read)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    init(settings: S3Settings) {
        self.settings = settings
        signer = SigV4(accessKey: settings.accessKey, secretKey: settings.secretKey, region: settings.region)
    }

    /// A request's body: bytes in memory (the small XML of a completion), or a part gathered in
    /// a spool file, with its SHA-256 (signed) computed as it was written.
    enum Payload: Sendable {
        case bytes(ByteBuffer)
        case spooled(SpoolFile, length: Int, sha256: String)
    }

    /// PutObject: `body` as the whole object.
    func put(key: String, body: Payload) async throws(S3Error) {
        let response = try await send("PUT", key: key, body: body)
        try await Self.expect(response, "PutObject")
    }

    /// CreateMultipartUpload: the upload's id.
    func createMultipartUpload(key: String) async throws(S3Error) -> String {
        let response = try await send("POST", key: key, query: [("uploads", "")])
        let answer = try await Self.expect(response, "CreateMultipartUpload")
        guard let id = Self.element("UploadId", in: answer) else {
            throw S3Error(.unexpected, "CreateMultipartUpload answered no UploadId.")
        }
        return id
    }

    /// UploadPart: the part's ETag.
    func uploadPart(key: String, uploadId: String, number: Int, body: Payload) async throws(S3Error) -> String {
        let response = try await send(
            "PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadId)], body: body)
        try await Self.expect(response, "UploadPart")
        guard let etag = response.headers.first(name: "etag") else {
            throw S3Error(.unexpected, "UploadPart answered no ETag.")
        }
        return etag
    }

    /// CompleteMultipartUpload, with the parts' ETags in order.
    func completeMultipartUpload(key: String, uploadId: String, etags: [String]) async throws(S3Error) {
        var xml = "<CompleteMultipartUpload>"
        for (index, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(Self.escape(etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let response = try await send("POST", key: key, query: [("uploadId", uploadId)], body: .bytes(ByteBuffer(string: xml)))
        let answer = try await Self.expect(response, "CompleteMultipartUpload")
        // S3 may answer 200 and still fail the completion, in the body.
        if answer.contains("<Error>") { throw Self.failure(status: 200, answer: answer, operation: "CompleteMultipartUpload") }
    }

    /// AbortMultipartUpload: the parts sent so far are dropped.
    func abortMultipartUpload(key: String, uploadId: String) async throws(S3Error) {
        let response = try await send("DELETE", key: key, query: [("uploadId", uploadId)])
        try await Self.expect(response, "AbortMultipartUpload", missingIsFine: true)
    }

    /// HeadObject: the object's size, nil when there is none.
    func head(key: String) async throws(S3Error) -> Int? {
        let response = try await send("HEAD", key: key)
        if response.status == .notFound {
            // A HEAD answer has no body to tell a missing object from a missing bucket: asked
            // again as a GET of one byte, whose error names which.
            try await checkMissing(key: key)
            return nil
        }
        try await Self.expect(response, "HeadObject")
        guard let length = response.headers.first(name: "content-length").flatMap(Int.init) else {
            throw S3Error(.unexpected, "HeadObject answered no Content-Length.")
        }
        return length
    }

    /// GetObject of `range`: the answer, whose body is still to read; nil when there is no object.
    func get(key: String, range: ClosedRange<Int>) async throws(S3Error) -> HTTPClientResponse? {
        let response = try await send(
            "GET", key: key, headers: [("range", "bytes=\(range.lowerBound)-\(range.upperBound)")], through: Self.bodies)
        if response.status == .notFound {
            let answer = await Self.text(of: response)
            if Self.element("Code", in: answer) == "NoSuchKey" || answer.isEmpty { return nil }
            throw Self.failure(status: 404, answer: answer, operation: "GetObject")
        }
        guard response.status == .partialContent || response.status == .ok else {
            throw Self.failure(status: Int(response.status.code), answer: await Self.text(of: response), operation: "GetObject")
        }
        return response
    }

    /// Throws unless the store says `key` is missing from a bucket that exists and that these
    /// credentials may read (`NoSuchKey`; an empty 404, which some stores send, counts too).
    /// A present object (its first byte or its 416) is no error either: it raced the question.
    func checkMissing(key: String) async throws(S3Error) {
        let response = try await send("GET", key: key, headers: [("range", "bytes=0-0")])
        let answer = await Self.text(of: response)
        let status = Int(response.status.code)
        if (200..<300).contains(status) || status == 416 { return }
        if status == 404, Self.element("Code", in: answer) == "NoSuchKey" || answer.isEmpty { return }
        throw Self.failure(status: status, answer: answer, operation: "GetObject")
    }

    /// DeleteObject; deleting what isn't there is no error.
    func delete(key: String) async throws(S3Error) {
        let response = try await send("DELETE", key: key)
        try await Self.expect(response, "DeleteObject", missingIsFine: true)
    }

    /// A presigned GetObject URL of `key`, valid `expiry` seconds, with `answer`'s parameters.
    func presignedGet(key: String, expiry: Int, answer: [(String, String)]) -> String {
        let path = settings.path(ofKey: key)
        return settings.url(
            path: path, query: signer.presignedQuery(host: settings.host, path: path, expiry: expiry, at: Date(), parameters: answer))
    }

    /// Sends one signed request about `key`.
    private func send(
        _ method: String, key: String, query: [(String, String)] = [], headers: [(String, String)] = [], body: Payload? = nil,
        through client: HTTPClient = S3Client.http
    ) async throws(S3Error) -> HTTPClientResponse {
        try await send(method, path: settings.path(ofKey: key), query: query, headers: headers, body: body, through: client)
    }

    /// Sends one signed request to `path`: an object's, or the bucket's own (a listing).
    func send(
        _ method: String, path: String, query: [(String, String)] = [], headers: [(String, String)] = [], body: Payload? = nil,
        through client: HTTPClient = S3Client.http
    ) async throws(S3Error) -> HTTPClientResponse {
        var signed = SigV4.Request(method: method, host: settings.host, path: path, query: query, headers: headers)
        var request = HTTPClientRequest(url: settings.url(path: path, query: SigV4.canonicalQuery(query)))
        switch body {
        case .bytes(let bytes):
            signed.payloadHash = StoredContent.hex(bytes.withUnsafeReadableBytes { SHA256.hash(data: $0) })
            request.body = .bytes(bytes)
        case .spooled(let file, let length, let sha256):
            signed.payloadHash = sha256
            request.body = .stream(file.chunks(length: length), length: .known(Int64(length)))
        case nil:
            break
        }
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signer.headers(for: signed, at: Date()) { request.headers.add(name: name, value: value) }
        do {
            return try await client.execute(request, timeout: Self.timeout)
        } catch {
            throw S3Error(.unreachable, "The S3 endpoint \(settings.endpoint) could not be reached: \(error)")
        }
    }

    /// The answer's text (at most `limit` bytes of it) when it succeeded; else the failure it tells.
    @discardableResult
    static func expect(
        _ response: HTTPClientResponse, _ operation: String, missingIsFine: Bool = false, limit: Int = answerLimit
    ) async throws(S3Error) -> String {
        let answer = await text(of: response, limit: limit)
        let status = Int(response.status.code)
        if (200..<300).contains(status) { return answer }
        if missingIsFine, status == 404, element("Code", in: answer) != "NoSuchBucket" { return answer }
        throw failure(status: status, answer: answer, operation: operation)
    }

    /// What an error answer means.
    private static func failure(status: Int, answer: String, operation: String) -> S3Error {
        let code = element("Code", in: answer) ?? "HTTP \(status)"
        let message = element("Message", in: answer).map { ": \($0)" } ?? ""
        let kind: S3Error.Kind =
            switch code {
            case "NoSuchBucket": .noSuchBucket
            case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidClientTokenId", "ExpiredToken": .refused
            default: status == 403 ? .refused : .unexpected
            }
        return S3Error(kind, "\(operation) failed with \(code)\(message)")
    }

    /// The start of an answer's body as text (empty when it can't be read).
    private static func text(of response: HTTPClientResponse, limit: Int = answerLimit) async -> String {
        guard let buffer = try? await response.body.collect(upTo: limit) else { return "" }
        return String(buffer: buffer)
    }

    /// The text of the first `<name>` element of an XML answer, its entities read.
    static func element(_ name: String, in xml: String) -> String? {
        guard let open = xml.range(of: "<\(name)>"), let close = xml.range(of: "</\(name)>", range: open.upperBound..<xml.endIndex)
        else { return nil }
        return String(xml[open.upperBound..<close.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Text made safe inside an XML element.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
