import Foundation

/// A name placed in a request path as one segment (a function's, a timer's, a task's).
enum PathSegment {
    /// `name` with anything that would end or split a path segment (`/`, `?`, `#`, `%`, spaces,
    /// ...) percent-escaped, so the server sees exactly the name given.
    static func escaped(_ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }
}
