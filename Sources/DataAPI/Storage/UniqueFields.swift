/// The fields no two objects of a class may share a value of: `_User`'s username, email and
/// mobile phone number, `_Role`'s name (a role's name is an identity in every ACL).
///
/// A unique index on each, in both engines, decides: a check made before a write (the
/// service's, which answers the usual error sooner) lets two concurrent writes of one value
/// both pass it. Only non-empty text values are indexed: a user without an email, or with
/// `""`, has none to share. The databases compare the text as bytes, as identities are
/// compared (`Identity`); the values are written normalised where they are identities.
enum UniqueFields {
    /// One unique field, and what a write that would repeat its value answers.
    struct Field: Sendable {
        /// The class.
        var className: String
        /// The top-level field.
        var name: String
        /// LeanCloud's code for a taken value.
        var code: DataAPIError.Code
        /// LeanCloud's message for it.
        var message: String

        /// The error a taken value answers.
        var taken: DataAPIError { DataAPIError(code, message) }

        /// The name of the field's index on `table` (`o_3_unique_username`): the table's name
        /// in front, as every index of a class's table has (index names are per schema).
        func indexName(table: String) -> String { "\(table)\(UniqueFields.marker)\(name)" }

        /// What the log says at each start while the field's table can't get its index (it holds
        /// a value twice): the engines' `ensureUniqueIndexes`.
        func indexRefused(_ error: any Error) -> String {
            """
            \(className).\(name) can't get its unique index (\(error)): it holds a value twice. \
            Concurrent writes may add more until the duplicates are changed and the host restarted.
            """
        }
    }

    /// What sets these indexes' names apart from the schema's others and the automatic ones.
    static let marker = "_unique_"

    /// Every unique field.
    static let all: [Field] = [
        Field(className: "_User", name: "username", code: .usernameTaken, message: "Username has already been taken."),
        Field(className: "_User", name: "email", code: .emailTaken, message: "Email has already been taken."),
        Field(
            className: "_User", name: "mobilePhoneNumber", code: .mobilePhoneTaken,
            message: "Mobile phone number has already been taken."),
        Field(className: "_Role", name: "name", code: .duplicateValue, message: "A role with this name already exists."),
    ]

    /// The unique fields of a class (none for most).
    static func fields(of className: String) -> [Field] {
        all.filter { $0.className == className }
    }

    /// What a violation of the index named `index` answers; nil when it isn't one of these.
    static func violation(ofIndex index: String) -> DataAPIError? {
        guard index.hasPrefix("o_") else { return nil }
        return all.first { index.hasSuffix(marker + $0.name) }?.taken
    }

    /// What a SQLite unique violation answers, from its message (`UNIQUE constraint failed:
    /// index 'o_3_unique_username'` for an index over an expression); nil for any other.
    static func violation(sqliteMessage message: String?) -> DataAPIError? {
        guard let message, let start = message.firstRange(of: "index '"), message.hasSuffix("'") else { return nil }
        return violation(ofIndex: String(message[start.upperBound..<message.index(before: message.endIndex)]))
    }
}
