public import DataAPI
public import JSON

/// One committed write as every host's subscriptions hear it: the object after the write (the
/// deleted object for a delete), what it was before, and which keys changed.
public struct CommittedChange: Sendable {
    /// What the write did; `login` is a user's login, heard for `_User` subscriptions.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// An object was created.
        case create
        /// An object was updated.
        case update
        /// An object was deleted.
        case delete
        /// A user logged in (`object` is the user).
        case login
    }

    /// What the write did.
    public var kind: Kind
    /// The class written.
    public var className: String
    /// The stored object after the write, as REST JSON (the deleted object for a delete).
    public var object: [String: JSONValue]
    /// The stored object before an update or delete.
    public var original: [String: JSONValue]?
    /// The keys an update changed.
    public var updatedKeys: [String]
    /// The environment of the caller that wrote (whose data it is when staging has its own).
    public var environment: EnvironmentName

    /// Creates a change.
    public init(
        kind: Kind, className: String, object: [String: JSONValue], original: [String: JSONValue]? = nil,
        updatedKeys: [String] = [], environment: EnvironmentName
    ) {
        self.kind = kind
        self.className = className
        self.object = object
        self.original = original
        self.updatedKeys = updatedKeys
        self.environment = environment
    }
}
