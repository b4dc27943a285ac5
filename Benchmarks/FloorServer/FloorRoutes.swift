import Foundation
import HTTPTypes
import Hummingbird
import JSON
import NIOCore

/// The floor's routes: each checks the app's keys, reads the body, does its target's one piece
/// of work and answers JSON, as a LeanCloud client expects it.
struct FloorRoutes: Sendable {
    let store: FloorStore
    let scripts: FloorScripts
    /// Swift functions by name, called as the host calls them: through a closure that may suspend.
    let functions: [String: @Sendable (JSONValue) async throws -> JSONValue] = [
        "swiftHello": { _ in .string("Hello world!") }
    ]

    /// The headers the app's id and key come in.
    static let appIdField = HTTPField.Name("X-LC-Id")!
    static let appKeyField = HTTPField.Name("X-LC-Key")!

    /// `POST /1.1/functions/{name}`: a Swift function called with the parsed body, or `helloJS`
    /// called in JavaScript with the body's text.
    func function(_ request: Request, context: some RequestContext) async throws -> Response {
        try Self.checkKeys(request)
        let name = try context.parameters.require("name")
        let body = try await request.body.collect(upTo: 1 << 20)
        if let function = functions[name] {
            let params = try Self.parse(body)
            return Self.json(.object(["result": try await function(params)]))
        }
        guard name == "helloJS" else { throw HTTPError(.notFound) }
        // JavaScriptCore parses the body itself: the text crosses once each way.
        let result = try await scripts.call("helloJS", argument: String(buffer: body))
        return Self.json(text: "{\"result\":\(result)}")
    }

    /// `POST /1.1/classes/{class}`: the body checked to be an object and stored; a `Todo` goes
    /// through its JS `beforeSave` first and its `afterSave` once stored, as the host's example hooks.
    func create(_ request: Request, context: some RequestContext) async throws -> Response {
        try Self.checkKeys(request)
        let className = try context.parameters.require("className")
        let body = try await request.body.collect(upTo: 1 << 20)
        var document = String(buffer: body)
        guard case .object = try Self.parse(body) else { throw HTTPError(.badRequest) }
        if className == "Todo" { document = try await scripts.call("beforeSave", argument: document) }
        let (objectId, createdAt) = try await store.insert(className: className, document: document)
        if className == "Todo" { _ = try await scripts.call("afterSave", argument: document) }
        var response = Self.json(text: "{\"objectId\":\"\(objectId)\",\"createdAt\":\"\(createdAt)\"}")
        response.status = .created
        response.headers[.location] = "/1.1/classes/\(className)/\(objectId)"
        return response
    }

    /// The app id and key `make bench` sends, compared as they come: 401 otherwise.
    static func checkKeys(_ request: Request) throws {
        guard request.headers[appIdField] == "benchapp", request.headers[appKeyField] == "benchkey" else {
            throw HTTPError(.unauthorized)
        }
    }

    /// The body as JSON (the project's parser, as the host parses): 400 when it isn't.
    static func parse(_ body: ByteBuffer) throws -> JSONValue {
        do {
            return try body.withUnsafeReadableBytes { try JSONValue(parsing: $0) }
        } catch {
            throw HTTPError(.badRequest)
        }
    }

    /// A 200 answer with `value` printed as JSON.
    static func json(_ value: JSONValue) -> Response {
        var bytes: [UInt8] = []
        value.write(to: &bytes)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A 200 answer with JSON already printed.
    static func json(text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
