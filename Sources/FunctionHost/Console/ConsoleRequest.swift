import Foundation
import HTTPTypes
import Hummingbird

/// What the console reads of a request itself: its session cookie, whether it came over https
/// as this host sees it, and whether a browser sent it from the console's own origin.
struct ConsoleRequest {
    /// The session cookie's name.
    static let cookieName = "fh_console"

    let request: Request
    let context: HostRequestContext
    /// The proxies whose `X-Forwarded-Proto` is believed.
    let proxies: TrustedProxies

    /// Whether `path` is the console's (`/console`, `/console/...`), with the empty segments in
    /// front the router skips (`//console/...` reaches the console too).
    static func isConsolePath(_ path: String) -> Bool {
        let path = path.drop { $0 == "/" }
        return path.hasPrefix("console") && (path.utf8.count == 7 || path.utf8.dropFirst(7).first == UInt8(ascii: "/"))
    }

    /// The most well-formed session cookies one request is looked up by.
    static let maxSessionCookies = 16

    /// The well-formed session ids the request's cookies carry, in order, the first
    /// `maxSessionCookies`: every one, not only the first, so that cookies another page of the
    /// same site planted in front (cookies know no port, and a longer path is sent first) can't
    /// lock the operator out; malformed ones are skipped before they are counted.
    var sessionIDs: [String] {
        var ids: [String] = []
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let pair = pair.drop { $0 == " " }
                guard pair.hasPrefix(Self.cookieName + "="), ids.count < Self.maxSessionCookies else { continue }
                let id = String(pair.dropFirst(Self.cookieName.utf8.count + 1))
                if ConsoleSessions.isWellFormed(id) { ids.append(id) }
            }
        }
        return ids
    }

    /// Whether the request reached this host over https: only a trusted proxy's
    /// `X-Forwarded-Proto` says so (the host itself speaks plain HTTP).
    var isHTTPS: Bool {
        guard let peer = context.remoteAddress, proxies.contains(peer) else { return false }
        return request.headers[.forwardedProto]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// The origin this request addressed (`http://host:port`), from its `Host`.
    var ownOrigin: String? {
        guard let authority = request.head.authority, !authority.isEmpty else { return nil }
        return (isHTTPS ? "https://" : "http://") + authority.lowercased()
    }

    /// Whether a browser sent it from the console's own page: `Sec-Fetch-Site`, when sent, says
    /// `same-origin` (or `none`, a typed address, for reads), and `Origin`, when sent, is the
    /// request's own. A change (`requireProof`) must carry at least one of them: every browser
    /// sends `Origin` with a POST, PUT or DELETE, and a page elsewhere can't forge it.
    func isSameOrigin(requireProof: Bool) -> Bool {
        let site = request.headers[.secFetchSite]?.lowercased()
        if let site, site != "same-origin", requireProof || site != "none" { return false }
        let origin = request.headers[.origin]
        if let origin {
            guard let own = ownOrigin, origin.lowercased() == own else { return false }
        }
        return !requireProof || site == "same-origin" || origin != nil
    }

    /// Whether the method changes anything (everything but GET and HEAD). A GET may still run
    /// code (a function called by GET): the API's routes ask the CSRF token of every request.
    var isChange: Bool { request.method != .get && request.method != .head }

    /// The session cookie for `id`, or one that removes it (`id` nil). `SameSite=Strict` keeps
    /// it off every request another site starts; `HttpOnly` keeps it from the page's script.
    func cookie(_ id: String?, maxAge: Int) -> Cookie {
        Cookie(
            name: Self.cookieName, value: id ?? "", maxAge: id == nil ? 0 : maxAge, path: "/console", secure: isHTTPS,
            httpOnly: true, sameSite: .strict)
    }
}

/// The console's refusals, each `{"code","error"}`.
enum ConsoleRefusal {
    /// No session, or one that ended: log in again.
    static let noSession = HostError.unauthorized
    /// A change without the session's CSRF token.
    static let csrf = HostError(status: .forbidden, code: 403, message: "Missing or wrong X-Console-CSRF token.")
    /// A request another site's page sent.
    static let crossSite = HostError(status: .forbidden, code: 403, message: "Cross-site requests to the console are refused.")
    /// A wrong master key.
    static let wrongKey = HostError(status: .unauthorized, code: 401, message: "Wrong master key.")
}

extension HTTPField.Name {
    /// The header the console's page sends its CSRF token in.
    static let consoleCSRF = Self("X-Console-CSRF")!
    /// Who started a request, as the browser tells it (`same-origin`, `same-site`, `cross-site`, `none`).
    static let secFetchSite = Self("Sec-Fetch-Site")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
}
