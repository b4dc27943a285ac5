import Foundation

/// Where a PostgreSQL database is and how to use it, read from a URL:
/// `postgres://user:password@host:port/database?schema=name&pool=10&sslmode=prefer`.
///
/// `schema` puts every table in a schema of its own (created if missing), so one database can
/// hold several FunctionHost apps, or one test each; `pool` bounds the connections each host
/// opens; `sslmode` is `disable`, `prefer` (the default, as libpq has it) or `require`.
package struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role to connect as.
    public var username: String
    /// Its password, if the server asks for one.
    public var password: String?
    /// The database's name.
    public var database: String
    /// The schema the tables live in; nil for the role's default (`public`).
    public var schema: String?
    /// The most connections this host opens at once.
    public var poolSize: Int
    /// Whether the connection is encrypted.
    public var tls: TLSMode

    /// How a connection uses TLS.
    public enum TLSMode: String, Sendable, Hashable {
        /// Never.
        case disable
        /// When the server offers it.
        case prefer
        /// Always; a server without TLS is an error.
        case require
    }

    /// Reads a `postgres://` or `postgresql://` URL; nil when it is not one.
    public init?(url text: String) {
        guard let components = URLComponents(string: text), components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.host = host
        port = components.port ?? 5432
        username = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : path
        var schema: String?
        var poolSize = 10
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "schema":
                guard let value = item.value, Self.isValidSchema(value) else { return nil }
                schema = value
            case "pool":
                guard let value = item.value.flatMap(Int.init), (1...1000).contains(value) else { return nil }
                poolSize = value
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else { return nil }
                tls = mode
            default:
                continue
            }
        }
        self.schema = schema
        self.poolSize = poolSize
        self.tls = tls
    }

    /// The same database with its tables in `schema`.
    public func inSchema(_ schema: String) -> PostgresLocation {
        var copy = self
        copy.schema = schema
        return copy
    }

    /// Schema names are put in SQL as identifiers: letters, digits and `_` only.
    static func isValidSchema(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 63
            && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }

    /// The URL without its password, for logs.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)" + (schema.map { "?schema=\($0)" } ?? "")
    }
}
