import DataAPI
import Hummingbird

/// Answers every request whose `Host` names the file domain (`FileDomain`) with a file or an
/// error, never with the API: `GET|HEAD /<key>` and `/<key>/<name>` serve the file stored under
/// `key` as `/files/<key>` does (type, `nosniff`, disposition, ranges, thumbnails). On that
/// name nothing else is routed, so a cookie, a key or a token sent to the file domain can't
/// reach the API through it.
struct FileDomainMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let domain: FileDomain
    let downloads: FileDownloads

    /// The answer for a path that names no stored file.
    static let notFound = HostError(status: .notFound, code: 404, message: "File not found.")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard domain.matches(authority: request.head.authority) else { return try await next(request, context) }
        let sendsBody: Bool
        switch request.method {
        case .get: sendsBody = true
        case .head: sendsBody = false
        default: throw HostError(status: .methodNotAllowed, code: 405, message: "The file domain serves GET and HEAD only.")
        }
        guard let key = Self.key(inPath: request.uri.path) else { throw Self.notFound }
        return try await downloads.serve(request, key: key, client: context.clientAddress, sendsBody: sendsBody)
    }

    /// The key a file domain's path names: its first segment when it is a key this host stores
    /// (`LocalFileStore.isValidKey`, so `..`, `%2F` and the like name nothing), followed by at
    /// most one more segment, the file's name. Nil for any other path.
    static func key(inPath path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        let segments = path.dropFirst().split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard (1...2).contains(segments.count), !segments.contains(where: \.isEmpty) else { return nil }
        let key = String(segments[0])
        return LocalFileStore.isValidKey(key) ? key : nil
    }
}
