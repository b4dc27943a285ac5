import DataAPI
import NIOCore

/// What a call's search answers link with (`SearchLinks`), kept as its parts and made into
/// links only when the call searches: most calls never do, and rendering the server's address
/// and the app's scheme for each of them cost a Swift function about 2 µs of the server's CPU.
struct SearchLinkSource: Sendable {
    /// The configured public URL, if any.
    var publicURL: String?
    /// The address the request's connection reached the server at, used without a public URL.
    var localAddress: SocketAddress?
    /// LeanCloud's suggested URL scheme for the app (`SearchLinks.scheme`), made once per host.
    let scheme: String

    /// The host's links: under `publicURL`, with `appId`'s scheme.
    init(publicURL: String? = nil, appId: String) {
        self.publicURL = publicURL
        scheme = SearchLinks(base: "", appId: appId).scheme
    }

    /// The same links for a call whose connection reached the server at `address`.
    func reached(at address: SocketAddress?) -> SearchLinkSource {
        var source = self
        source.localAddress = address
        return source
    }

    /// The links, under the public URL or else the connection's own address (`LinkBase.forFiles`).
    var links: SearchLinks {
        SearchLinks(
            base: publicURL ?? LinkBase.serverAddress(of: localAddress) ?? "http://localhost", appId: "", scheme: scheme)
    }
}
