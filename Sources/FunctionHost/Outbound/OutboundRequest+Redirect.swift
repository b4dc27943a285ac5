import Foundation

extension OutboundRequest {
    /// The statuses that are followed when they carry a `Location`.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request to send next when `target` answered `status` with `location`, as browsers
    /// (and `fetch`) do it: 303, and 301/302 after a POST, become a GET without a body; 307 and 308
    /// repeat the method and body; credentials are not sent on to another origin.
    ///
    /// The new URL is checked against the policy like the first one, by the caller.
    func following(status: Int, location: String, from target: OutboundTarget) throws(OutboundHTTPError)
        -> OutboundRequest
    {
        guard let base = URL(string: target.url), let next = URL(string: location, relativeTo: base) else {
            throw .invalidURL(location, "the redirect location can't be parsed")
        }
        var request = self
        request.url = next.absoluteString
        if status == 303 && method != "HEAD" || (status == 301 || status == 302) && method == "POST" {
            request.method = "GET"
            request.body = nil
            request.headers.removeAll { $0.0.lowercased().hasPrefix("content-") }
        }
        if let nextTarget = try? OutboundTarget(url: request.url), !nextTarget.isSameOrigin(as: target) {
            let credentials: Set<String> = ["authorization", "cookie", "proxy-authorization"]
            request.headers.removeAll { credentials.contains($0.0.lowercased()) }
        }
        return request
    }
}
