import DataAPI
import Hummingbird
import NIOCore

/// LeanCloud's captcha API: `GET requestCaptcha` (`width`, `height`; `size` and `ttl` with the
/// master key) answers `{"captcha_token", "captcha_url"}`; the URL (`captchaImage?token=`, no
/// keys, as an `<img>` loads it) serves the PNG; `POST verifyCaptcha` with `captcha_code` and
/// `captcha_token` answers `{"validate_token"}` for an SMS request.
struct CaptchaRoutes: Sendable {
    let captchas: Captchas
    /// The address image URLs start with; nil takes the server's own, as file URLs do.
    let publicURL: String?

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("requestCaptcha") { request, context in
            let parameters = request.uri.queryParameters
            var wanted = Captchas.Request()
            if let width = try Self.number(parameters["width"], "width") { wanted.width = width }
            if let height = try Self.number(parameters["height"], "height") { wanted.height = height }
            let size = try Self.number(parameters["size"], "size")
            let ttl = try Self.number(parameters["ttl"], "ttl")
            // An easier captcha is no captcha: only the operator chooses its length and life.
            if size != nil || ttl != nil, !context.caller.isMaster {
                throw DataAPIError(.operationForbidden, "size and ttl need the master key.")
            }
            if let size { wanted.size = size }
            if let ttl { wanted.ttl = Double(ttl) }
            let token = try await captchas.create(wanted)
            let url = LinkBase.forFiles(publicURL: publicURL, context: context) + "/1.1/captchaImage?token=" + token
            return JSONResponse(["captcha_token": .string(token), "captcha_url": .string(url)])
        }
        group.post("verifyCaptcha") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            let token = try await captchas.verify(
                code: body["captcha_code"]?.stringValue ?? "", token: body["captcha_token"]?.stringValue ?? "")
            return JSONResponse(["validate_token": .string(token)])
        }
    }

    /// The image (`captchaImage?token=`), for a group outside the authenticated one: an `<img>`
    /// sends no keys, and the token is the credential.
    func registerImage(on group: RouterGroup<HostRequestContext>) {
        group.get("captchaImage") { request, _ in
            guard let token = request.uri.queryParameters["token"].map(String.init),
                let png = try await captchas.image(token: token)
            else {
                throw HostError(status: .notFound, code: 608, message: "No such captcha: it is used, expired or unknown.")
            }
            var headers: HTTPFields = [:]
            headers[.contentType] = "image/png"
            // Each image is one captcha's: never kept by a cache.
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: png)))
        }
    }

    /// A whole-number query parameter; 1 (400) for anything else.
    private static func number(_ text: Substring?, _ name: String) throws(DataAPIError) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text) else { throw DataAPIError(.badParameters, "\(name) must be a whole number.") }
        return value
    }
}
