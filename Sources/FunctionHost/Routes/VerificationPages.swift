import DataAPI
import Foundation
import Hummingbird
import JSON
import NIOCore

/// The pages the links in emails open, which a person sees in a browser, with no app keys:
/// `GET /1.1/emailVerify/{token}` verifies the address; `GET /1.1/resetPassword/{token}` shows a
/// form whose `POST` (a form, or JSON `{"password"}`) sets the new password. Registered outside
/// the authenticated group: the token is the credential.
struct VerificationPages: Sendable {
    let verification: UserVerification

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("emailVerify/:token") { _, context in
            do {
                try await verification.verifyEmail(token: try context.parameters.require("token"), caller: context.caller)
                return Self.page("Email verified", "Your email address is verified. You can close this page.")
            } catch let error as DataAPIError where error.code == .invalidCode {
                return Self.expired
            }
        }
        group.get("resetPassword/:token") { _, context in
            let token = try context.parameters.require("token")
            guard try await verification.passwordResetIsLive(token: token) else { return Self.expired }
            return Self.page(
                "Choose a new password",
                """
                <form method="post"><label>New password <input type="password" name="password" required \
                autocomplete="new-password"></label> <button type="submit">Save</button></form>
                """, escaped: false)
        }
        group.post("resetPassword/:token") { request, context in
            var request = request
            let token = try context.parameters.require("token")
            let buffer = try await request.collectBody(upTo: context.bodyLimit)
            let isJSON = request.headers[.contentType]?.hasPrefix("application/json") == true
            let password: String
            if isJSON {
                guard case .object(let body) = try JSONValue(parsing: buffer.readableBytesView) else {
                    throw DataAPIError(.malformedJSON, "The request body must be a JSON object.")
                }
                password = body["password"]?.stringValue ?? ""
            } else {
                password = Request.formParameters(String(buffer: buffer))["password"] ?? ""
            }
            do {
                try await verification.resetPassword(token: token, password: password)
            } catch let error as DataAPIError where !isJSON {
                return Self.page("Password not changed", error.message, status: .badRequest)
            }
            return isJSON ? JSONResponse([:]).response : Self.page("Password changed", "Your password has been changed.")
        }
    }

    /// What a used, expired or made-up link opens.
    private static var expired: Response {
        page("Link expired", "This link is invalid or has expired: ask the app for a new one.", status: .badRequest)
    }

    /// A small HTML page.
    private static func page(
        _ title: String, _ content: String, status: HTTPResponse.Status = .ok, escaped: Bool = true
    ) -> Response {
        let body = escaped ? "<p>\(escape(content))</p>" : content
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">\
            <title>\(escape(title))</title></head><body><h1>\(escape(title))</h1>\(body)</body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
