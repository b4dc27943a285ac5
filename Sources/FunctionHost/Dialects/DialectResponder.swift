import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The dialects' edge: wraps the router every request goes through, and serves a LAS or
/// MaxLeap request as the LeanCloud request it means (`DialectPlan`), through the same
/// middleware (rate limits, authentication, hooks) and routes, then answers in the dialect's
/// shape (`DialectAnswer`). LeanCloud requests pass untouched.
struct DialectResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == HostRequestContext {
    let inner: Inner
    /// The body limits the router applies, applied here to the bodies read to translate them.
    let bodyLimits: BodyLimits
    /// How deep the router's answers can nest (`AnswerLimits.answerDepth`).
    let answerDepth: Int

    func respond(to request: Request, context: HostRequestContext) async throws -> Response {
        guard let (dialect, route) = Dialect.of(path: request.uri.path, headers: request.headers) else {
            return try await inner.respond(to: request, context: context)
        }
        var context = context
        context.dialect = dialect
        // Preflights carry no credentials: the router's CORS answer, which lists the dialects' headers.
        if request.method == .options { return try await inner.respond(to: request, context: context) }
        var signed = false
        var headers = request.headers
        let plan: DialectPlan
        let translated: Request
        do {
            let (dialectHeaders, isSigned, appIdInDialect) = try DialectHeaders.translated(request.headers)
            (headers, signed) = (dialectHeaders, isSigned)
            context.appIdInDialect = appIdInDialect
            guard let made = try await self.plan(request, route: route, context: context) else {
                throw HostError(status: .notFound, code: 404, message: "Not found.")
            }
            plan = made
            translated = try await internalRequest(request, plan: made, headers: headers, context: context)
        } catch {
            return await refusal(error, of: request, headers: headers, signed: signed, context: context)
        }
        // A JSON body goes to the route, and its JSON answer comes back, as values.
        if case .unchanged = plan.body {} else {
            if case .json(let json) = plan.body { context.dialectHandoff = DialectHandoff(body: json) } else {
                context.dialectHandoff = DialectHandoff(body: nil)
            }
        }
        do {
            let response = try await inner.respond(to: translated, context: context)
            return try await answer(response, plan.answer, signed: signed, handoff: context.dialectHandoff)
        } catch {
            return Self.errorAnswer(error, signed: signed)
        }
    }

    /// The edge's own refusal, answered through the router like every request: a client past
    /// its rate gets 429 and one without valid keys 401 first, as on LeanCloud's path; only then
    /// the refusal (`DialectRoutes.refusalPath`). Answered here directly, it skipped both.
    private func refusal(
        _ error: any Error, of request: Request, headers: HTTPFields, signed: Bool, context: HostRequestContext
    ) async -> Response {
        var context = context
        context.dialectRefusal = HostError(mapping: error) ?? HostError(status: .badRequest, code: 1, message: "Bad request.")
        var head = request.head
        head.method = .post
        head.path = DialectRoutes.refusalPath
        var headers = headers
        for name in [HTTPField.Name.contentType, .contentLength, .transferEncoding] { headers[name] = nil }
        head.headerFields = headers
        do {
            let response = try await inner.respond(to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: context)
            return try await answer(response, .native, signed: signed)
        } catch {
            return Self.errorAnswer(error, signed: signed)
        }
    }

    /// An error in the dialect's shape.
    private static func errorAnswer(_ error: any Error, signed: Bool) -> Response {
        let mapped = HostError(mapping: error) ?? HostError(status: .internalServerError, code: 1, message: "Internal server error.")
        let body: JSONValue = ["code": .int(Int64(mapped.code)), "error": .string(mapped.message)]
        let (status, json) = DialectAnswer.native.translate(status: mapped.status, body: body, signed: signed)
        return JSONResponse(status: status, json ?? [:]).response
    }

    /// The plan for a request, its JSON body read (within the router's limit for the path it
    /// becomes) and cleaned of transport fields. A file upload's body is left to stream.
    private func plan(_ request: Request, route: Substring, context: HostRequestContext) async throws -> DialectPlan? {
        let query = request.queryParameters
        // Without its body a batch plan is refused; it is only asked here where the body goes.
        let bare = try? DialectPlan.make(method: request.method, route: route, query: query, body: [:])
        if case .unchanged? = bare?.body { return bare }
        var request = request
        let limit = bodyLimits.limit(forPath: bare?.path ?? "/1.1/" + route)
        let buffer = try await request.collectBody(upTo: limit)
        var body: [String: JSONValue] = [:]
        if buffer.readableBytes > 0 {
            guard case .object(let members) = try JSONValue(parsing: buffer.readableBytesView) else {
                throw DataAPIError(.malformedJSON, "The request body must be a JSON object.")
            }
            body = DialectBody.cleaned(members)
        }
        return try DialectPlan.make(method: request.method, route: route, query: query, body: body)
    }

    /// The LeanCloud request a plan makes.
    private func internalRequest(
        _ request: Request, plan: DialectPlan, headers: HTTPFields, context: HostRequestContext
    ) async throws -> Request {
        var headers = headers
        var head = request.head
        head.method = plan.method
        head.path = plan.path
        let body: RequestBody
        switch plan.body {
        case .unchanged:
            guard let upload = try await base64Upload(request) else {
                body = request.body
                break
            }
            headers[.contentType] = upload.type
            headers[.contentLength] = String(upload.bytes.readableBytes)
            headers[.transferEncoding] = nil
            body = RequestBody(buffer: upload.bytes)
        case .json:
            // The route takes the value from the context (`DialectHandoff`): no bytes to print
            // here and parse there.
            headers[.contentType] = "application/json"
            headers[.contentLength] = nil
            body = RequestBody(buffer: ByteBuffer())
        case .empty:
            headers[.contentType] = nil
            headers[.contentLength] = nil
            body = RequestBody(buffer: ByteBuffer())
        }
        if case .unchanged = plan.body {} else { headers[.transferEncoding] = nil }
        head.headerFields = headers
        return Request(head: head, body: body)
    }

    /// A file sent as JSON `{"base64": …}`, as the MaxLeap JS SDK (with its transport fields and
    /// no JSON content type) and the LAS Python SDK (`_ContentType`, `mime_type`) send files: its
    /// bytes and type. Nil for raw bytes, which stream on. A body that only looks like it (no
    /// `base64` string) is uploaded as it came.
    private func base64Upload(_ request: Request) async throws -> (bytes: ByteBuffer, type: String?)? {
        let type = request.headers[.contentType]
        guard type == nil || type!.hasPrefix("application/json") || type!.hasPrefix("text/plain") else { return nil }
        var request = request
        let buffer = try await request.collectBody(upTo: bodyLimits.largest)
        guard buffer.readableBytes > 0, buffer.readableBytesView.first == UInt8(ascii: "{"),
            case .object(let members)? = try? JSONValue(parsing: buffer.readableBytesView),
            let text = members["base64"]?.stringValue
        else { return (buffer, type) }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw DataAPIError(.badParameters, "The file's base64 is not valid.")
        }
        let declared = (members["_ContentType"] ?? members["mime_type"])?.stringValue
        return (ByteBuffer(bytes: data), declared)
    }

    /// The router's answer in the dialect's shape; answers that aren't JSON (file bytes) pass.
    /// The JSON is the value the answer was made from when the handoff kept it; only answers
    /// made otherwise (a route's own `Response`) are read back from their bytes.
    private func answer(
        _ response: Response, _ kind: DialectAnswer, signed: Bool, handoff: DialectHandoff? = nil
    ) async throws -> Response {
        guard response.headers[.contentType]?.hasPrefix("application/json") == true else { return response }
        let json: JSONValue
        if let kept = handoff?.answer {
            json = kept
        } else {
            let collector = BodyCollector()
            try await response.body.write(collector)
            // The host's own answer, not a client's text: included objects may nest it deeper
            // than a request may be, within the depth its building allowed.
            json = (try? JSONValue(parsing: collector.buffer.readableBytesView, maxDepth: answerDepth)) ?? [:]
        }
        let (status, body) = kind.translate(status: response.status, body: json, signed: signed)
        var headers = response.headers
        headers[.location] = nil
        headers[.contentLength] = nil
        guard let body else {
            headers[.contentType] = nil
            return Response(status: status, headers: headers)
        }
        return JSONResponse(status: status, body, headers: headers).response
    }
}

/// Collects a response body written to it.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// The router wrapped in the dialects' edge: what the application serves.
struct DialectRouter: HTTPResponderBuilder {
    let router: Router<HostRequestContext>
    let bodyLimits: BodyLimits
    let answerDepth: Int

    func buildResponder() -> DialectResponder<RouterResponder<HostRequestContext>> {
        DialectResponder(inner: router.buildResponder(), bodyLimits: bodyLimits, answerDepth: answerDepth)
    }
}
