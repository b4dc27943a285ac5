import Foundation
import JSON

/// One identity access is decided by: `*`, a user's id, or `role:<name>`; compared and hashed
/// by its UTF-8 bytes.
///
/// Swift's `String` equality and hashing are canonical equivalence: `"管\u{F9E4}员"` equals
/// `"管理员"`, and so does every decomposed Hangul spelling of a Hangul name. Compared as
/// strings, a role with a look-alike name would hold the rights an ACL or a class permission
/// gives the real one. So identities are written normalised (`normalized(_:)`, once, where a
/// role name, a username, an ACL key or a class permission's name is stored) and compared as
/// bytes everywhere, as the databases compare them in SQL.
public struct Identity: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identity's text, as stored.
    public let text: String

    /// The identity `text`, as it is (no normalisation: a stored name is compared as it was stored).
    public init(_ text: String) {
        self.text = text
    }

    /// The identity a literal spells (`"*"`, a test's `"role:editors"`).
    public init(stringLiteral text: String) {
        self.text = text
    }

    /// Everyone holding the app key (`*`).
    public static let everyone = Identity("*")

    /// The identity of the role named `name` (`role:<name>`).
    public static func role(_ name: String) -> Identity {
        Identity("role:" + name)
    }

    /// The role's name when this is a role's identity (`role:<name>`); nil otherwise. By bytes:
    /// a combining mark after the colon would make `role:` no prefix of the characters.
    public var roleName: String? {
        text.utf8.starts(with: "role:".utf8) ? String(decoding: text.utf8.dropFirst(5), as: UTF8.self) : nil
    }

    public var description: String { text }

    public static func == (lhs: Identity, rhs: Identity) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        let contiguous: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if contiguous == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
        // The length ends the bytes, so that no two sequences of texts hash as one.
        hasher.combine(text.utf8.count)
    }

    /// `text` in Unicode's canonical composition (NFC): the one spelling an identity is stored
    /// in, so that canonically equivalent spellings written by different clients become the same
    /// bytes instead of two identities that look alike.
    /// The field of a class whose value names an identity (`_User`'s username, `_Role`'s name).
    static func nameField(of className: String) -> String? {
        switch className {
        case "_User": return "username"
        case "_Role": return "name"
        default: return nil
        }
    }

    /// Writes the class's identity name in `fields` (if any, as text) in its normal form: every
    /// write and import of a user or role passes here, so a canonically equivalent spelling is
    /// the same name (taken: 202, 137), never a look-alike.
    static func normalizeName(in fields: inout [String: JSONValue], of className: String) {
        guard let field = nameField(of: className), case .string(let name)? = fields[field] else { return }
        fields[field] = .string(normalized(name))
    }

    public static func normalized(_ text: String) -> String {
        // ASCII is its own normal form: skip Foundation's copy for ids, `*` and most names.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        return text.precomposedStringWithCanonicalMapping
    }
}
