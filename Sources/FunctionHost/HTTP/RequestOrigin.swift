import Hummingbird

/// What a write deep inside a request needs to know of the request itself: the API version its
/// path named (for the `Location` it answers with), and the client's address (for the send
/// limits a signup's messages take room in). Taken from the request, since each route is
/// registered once and mounted under `/1` and `/1.1`.
struct RequestOrigin: Sendable {
    /// `1.1` or `1`.
    var apiVersion: String
    /// The client's address (`HostRequestContext.clientAddress`).
    var client: String?

    /// The origin of `request`.
    init(_ request: Request, _ context: HostRequestContext) {
        apiVersion = Self.apiVersion(of: request.uri.path)
        client = context.clientAddress
    }

    /// An origin told outright.
    init(apiVersion: String, client: String?) {
        self.apiVersion = apiVersion
        self.client = client
    }

    /// The version a path starts with: the routes that ask are mounted only under `/1.1` and `/1`
    /// (and under the console's `/console/api/1.1`).
    static func apiVersion(of path: String) -> String {
        path.hasPrefix("/1.1/") || path.hasPrefix("/console/api/1.1/") ? "1.1" : "1"
    }
}
