import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import NIOCore
import Synchronization
import Testing

@testable import FunctionHost

/// The dialects' edge hands a translated body to the route as a value and takes the route's
/// JSON answer back as one: nothing is printed for the other side to parse again.
@Suite struct DialectHandoffTests {
    /// What the stand-in route saw: how many bytes its request's body had, and the JSON it read.
    final class Seen: Sendable {
        let value = Mutex<(bytes: Int, json: JSONValue?)?>(nil)
    }

    /// An answer made from one value and printed as another: the dialect's answer shows which of
    /// the two the edge reshaped.
    struct TwoFacedAnswer: ResponseGenerator {
        func response(from request: Request, context: some RequestContext) throws -> Response {
            let created: JSONValue = ["objectId": "fromValue", "createdAt": "2026-11-26T00:00:00.000Z"]
            (context as? HostRequestContext)?.dialectHandoff?.keep(answer: created)
            let printed: JSONValue = ["objectId": "fromBytes", "createdAt": "2026-11-26T00:00:00.000Z"]
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            return Response(status: .created, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: printed.jsonBytes)))
        }
    }

    @Test func theEdgeHandsTheRouteValuesAndTakesItsAnswerAsOne() async throws {
        let seen = Seen()
        let router = Router(context: HostRequestContext.self)
        router.post("1.1/classes/:className") { request, context in
            var request = request
            let json = try await request.json(context: context)
            let bytes = try await request.collectBody(upTo: 1 << 20).readableBytes
            seen.value.withLock { $0 = (bytes, json) }
            return TwoFacedAnswer()
        }
        let app = Application(router: DialectRouter(router: router, bodyLimits: BodyLimits(largest: 1 << 20), answerDepth: 64))
        try await app.test(.router) { client in
            var headers = HTTPFields()
            headers[HTTPField.Name("X-ML-AppId")!] = "app"
            headers[HTTPField.Name("X-ML-APIKey")!] = "key"
            headers[.contentType] = "application/json"
            let text = try await client.execute(
                uri: "/2.0/classes/Thing", method: .post, headers: headers, body: ByteBuffer(string: #"{"title":"a","n":1}"#)
            ) { String(buffer: $0.body) }
            #expect(text.contains("fromValue") && !text.contains("fromBytes"), "\(text)")
        }
        let (bytes, json) = try #require(seen.value.withLock { $0 })
        #expect(bytes == 0)
        #expect(json == ["title": "a", "n": 1])
    }
}
