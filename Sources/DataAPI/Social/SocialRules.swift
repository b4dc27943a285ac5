import Foundation
public import JSON

/// What statuses and friendships share: their classes, who a call acts for, and how the ids and
/// names a client sends are read and bounded.
public enum SocialRules {
    /// The follow graph as its followed side sees it: `user` is followed by `follower`.
    public static let followerClass = "_Follower"
    /// The follow graph as its following side sees it: `user` follows `followee`.
    public static let followeeClass = "_Followee"
    /// Statuses as their senders sent them (`source`, `inboxType`, the status's data).
    public static let statusClass = "_Status"
    /// One status in one user's inbox: `owner`, `inboxType`, `messageId`, `status`. The host's own.
    public static let inboxClass = "_StatusInbox"
    /// How far each inbox was read (`owner`, `inboxType`, `readUpTo`), and the message sequence.
    /// The host's own.
    public static let inboxMarkClass = "_StatusInboxMark"

    /// The longest user id or inbox type a call may name.
    public static let maxNameBytes = 64

    /// The user a call acts for: the caller's own user; the master key acts for `named` (a user
    /// it names), else for its own user if it has one. A user naming another is refused (119):
    /// nothing a client sends chooses whom a call acts as.
    ///
    /// - Throws: 206 when no user is signed in (and the master key names none), 119 when a
    ///   client names a user other than its own.
    public static func actingUser(_ caller: Caller, named: String?, doing action: String) throws(DataAPIError) -> String {
        if caller.isMaster, let named { return named }
        guard let own = caller.userId else {
            throw DataAPIError(.userNeedsSession, "\(action) needs a signed-in user (or the master key naming one).")
        }
        if let named, named != own {
            throw DataAPIError(.operationForbidden, "\(action): a user acts as himself only; the master key may act for another.")
        }
        return own
    }

    /// A user id as a call names it: 1 to 64 letters, digits, `_` or `-`.
    ///
    /// - Throws: 104 for anything else.
    public static func userId(_ text: String) throws(DataAPIError) -> String {
        try objectId(text, of: "user")
    }

    /// An object id as a call names it: 1 to 64 letters, digits, `_` or `-`.
    ///
    /// - Throws: 104 for anything else.
    public static func objectId(_ text: String, of kind: String) throws(DataAPIError) -> String {
        guard isName(text) else {
            throw DataAPIError(.missingObjectId, "Invalid \(kind) id: 1 to \(maxNameBytes) letters, digits, '_' or '-'.")
        }
        return text
    }

    /// The user id a parameter names: a `_User` Pointer (as JSON or its text) or the id itself.
    ///
    /// - Throws: 104 for a value that names no user id, or a Pointer to another class.
    public static func userId(in value: JSONValue) throws(DataAPIError) -> String {
        switch value {
        case .string(let text):
            if text.hasPrefix("{"), let parsed = try? JSONValue(parsing: Array(text.utf8)), parsed.objectValue != nil {
                return try userId(in: parsed)
            }
            return try userId(text)
        case .object(let members):
            guard members["className"]?.stringValue ?? "_User" == "_User", let id = members["objectId"]?.stringValue else {
                throw DataAPIError(.missingObjectId, "A user is named by a _User Pointer or its objectId.")
            }
            return try userId(id)
        default:
            throw DataAPIError(.missingObjectId, "A user is named by a _User Pointer or its objectId.")
        }
    }

    /// An inbox type: `default` when none is given, else 1 to 64 letters, digits, `_` or `-`.
    ///
    /// - Throws: 1 for anything else.
    public static func inboxType(_ value: JSONValue?) throws(DataAPIError) -> String {
        guard let value, value != .null else { return "default" }
        guard let text = value.stringValue, isName(text) else {
            throw DataAPIError(.badParameters, "inboxType is 1 to \(maxNameBytes) letters, digits, '_' or '-'.")
        }
        return text
    }

    /// A `_User` Pointer to `id`.
    public static func pointer(_ id: String) -> JSONValue {
        ["__type": "Pointer", "className": "_User", "objectId": .string(id)]
    }

    /// The user id a stored Pointer field holds; nil when it holds none.
    static func pointedUser(_ value: JSONValue?) -> String? {
        guard let value, value["__type"]?.stringValue == "Pointer", value["className"]?.stringValue == "_User" else { return nil }
        return value["objectId"]?.stringValue
    }

    /// An object id made from its parts, the same on every host: a row that must exist once per
    /// pair (a follow, an inbox's mark) is created under it, so the database's key refuses a
    /// second one however many requests race.
    static func derivedId(_ parts: String...) -> String {
        DerivedObjectId.make("", from: parts.joined(separator: "\u{1}"))
    }

    /// The server acting for a call, in the call's environment, hooks off: what writes the
    /// graph's rows and the inboxes (no client writes those classes itself).
    static func server(for caller: Caller) -> Caller {
        caller.asServer().withoutHooks
    }

    private static func isName(_ text: String) -> Bool {
        (1...maxNameBytes).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
}
