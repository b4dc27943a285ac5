import DataAPI
import Hummingbird
import NIOCore

/// `GET /openapi.json`: the OpenAPI 3 description of the REST surface, built once, served without
/// keys (it holds no secrets, and tools such as schemathesis read it before they authenticate).
struct OpenAPIRoutes: Sendable {
    let document: ByteBuffer

    init(version: String) {
        document = ByteBuffer(bytes: OpenAPIDocument.build(version: version).jsonBytes)
    }

    func register(on router: Router<HostRequestContext>) {
        router.get("openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: document))
        }
    }
}
