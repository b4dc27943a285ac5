/// Where stored files are served: the server builds the URLs (from its public URL and its own
/// routes); the data layer only records them in `_File` objects.
public struct FileURLs: Sendable {
    private let make: @Sendable (_ key: String, _ name: String?) -> String

    /// URLs made by `make`: the content under `key`, under the file's `name` when one is given
    /// (the key alone still finds it).
    public init(_ make: @escaping @Sendable (_ key: String, _ name: String?) -> String) {
        self.make = make
    }

    /// The URL of the content under `key`, named `name` when one is given.
    public func url(of key: String, name: String? = nil) -> String {
        make(key, name)
    }
}
