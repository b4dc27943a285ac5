import ArgumentParser
import DataAPI
import Foundation

/// `functionhost schema permit <Class> <action> <who>`.
struct SchemaPermit: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "permit",
        abstract: "Set who may do one action on a class.",
        discussion: """
            WHO is everyone, signed-in (any signed-in user), nobody (the master key alone), or a \
            comma list of user:<objectId> and role:<name> (members of a role, through child roles \
            too). Example: functionhost schema permit Post delete role:admin,user:5f3de9c27a53400006b1385e
            """)

    /// The class and where it is.
    @OptionGroup var target: SchemaTarget

    /// The action, by LeanCloud's name.
    @Argument(help: ArgumentHelp("get, find, create, update, delete or add_fields.", valueName: "action"))
    var action: String

    /// Who may do it.
    @Argument(help: ArgumentHelp("everyone, signed-in, nobody, or user:<id>,role:<name>,...", valueName: "who"))
    var who: String

    /// Refuses an unknown action or an unreadable WHO before any request.
    func validate() throws {
        guard ClassAction(rawValue: action) != nil else {
            throw ValidationError(
                "'\(action)' is not an action: use \(ClassAction.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        _ = try Self.rule(who)
    }

    /// WHO as LeanCloud's rule: `{"*": true}`, `{"onlySignInUsers": true}` or `{"users", "roles"}`.
    static func rule(_ who: String) throws -> [String: Any] {
        switch who {
        case "everyone": return ["*": true]
        case "signed-in": return ["onlySignInUsers": true]
        case "nobody": return ["users": [String](), "roles": [String]()]
        default: break
        }
        var users: [String] = []
        var roles: [String] = []
        for entry in who.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = entry.trimmingCharacters(in: .whitespaces)
            if entry.hasPrefix("user:"), entry.count > 5 {
                users.append(String(entry.dropFirst(5)))
            } else if entry.hasPrefix("role:"), entry.count > 5 {
                roles.append(String(entry.dropFirst(5)))
            } else {
                throw ValidationError(
                    "'\(entry)' is not user:<id> or role:<name>: give everyone, signed-in, nobody, or a comma list of those.")
            }
        }
        return ["users": users, "roles": roles]
    }

    /// Sets the one action and says who may now do it.
    func run() async throws {
        try await ClientFailure.reporting {
            let body = JSONText.data(["permissions": [action: try Self.rule(who)]])
            let answer = try await target.put(body)
            try target.options.report(answer) { answer in
                let rule = (answer.object["permissions"] as? [String: Any])?[action] as? [String: Any] ?? [:]
                return ["\(target.className): \(action) is now open to \(Self.describe(rule))."]
            }
        }
    }

    /// A rule in words, as the server answered it.
    static func describe(_ rule: [String: Any]) -> String {
        if rule["*"] as? Bool == true { return "everyone" }
        if rule["onlySignInUsers"] as? Bool == true { return "signed-in users" }
        let users = rule["users"] as? [String] ?? []
        let roles = rule["roles"] as? [String] ?? []
        var parts: [String] = []
        if !users.isEmpty { parts.append("users " + users.joined(separator: ", ")) }
        if !roles.isEmpty { parts.append("roles " + roles.joined(separator: ", ")) }
        return parts.isEmpty ? "nobody but the master key" : parts.joined(separator: " and ")
    }
}

/// `functionhost schema field <Class> <field> [--hidden] [--read-only] [--user-private] [--clear]`.
struct SchemaField: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "field",
        abstract: "Set flags of a field: the flags given are set, the others stay as they are.")

    /// The class and where it is.
    @OptionGroup var target: SchemaTarget

    /// The field.
    @Argument(help: ArgumentHelp("The field.", valueName: "field"))
    var field: String

    /// Never answered to, nor queried by, a client.
    @Flag(help: "Never answer the field to a client, nor let one query or sort by it.")
    var hidden = false

    /// Written by the master key only.
    @Flag(help: "Let only the master key (and cloud code acting as master) write the field.")
    var readOnly = false

    /// Answered to its own user only.
    @Flag(help: "(_User) answer the field only to the user it belongs to.")
    var userPrivate = false

    /// Unsets all three.
    @Flag(help: "Unset hidden, read-only and user-private.")
    var clear = false

    /// Refuses a malformed field name, no flag, or `--clear` with a flag (which would contradict it).
    func validate() throws {
        guard Names.isValidFieldName(field) else { throw ValidationError("'\(field)' is not a field name.") }
        let given = hidden || readOnly || userPrivate
        guard given || clear else { throw ValidationError("Give --hidden, --read-only, --user-private or --clear.") }
        guard !(given && clear) else { throw ValidationError("--clear unsets every flag: give it alone.") }
    }

    /// The descriptor's flags in LeanCloud's keys: those given, or all three unset.
    var flags: [String: Bool] {
        if clear { return ["hidden": false, "read_only": false, "user_private": false] }
        var flags: [String: Bool] = [:]
        if hidden { flags["hidden"] = true }
        if readOnly { flags["read_only"] = true }
        if userPrivate { flags["user_private"] = true }
        return flags
    }

    /// Sets the flags and says which the field now has.
    func run() async throws {
        try await ClientFailure.reporting {
            let body = JSONText.data(["schema": [field: flags]])
            let answer = try await target.put(body)
            try target.options.report(answer) { answer in
                let set = (answer.object["schema"] as? [String: Any])?[field] as? [String: Any] ?? [:]
                let names = ["hidden", "read_only", "user_private"].filter { set[$0] as? Bool == true }
                let words = names.map { $0.replacingOccurrences(of: "_", with: "-") }
                return ["\(target.className).\(field): " + (words.isEmpty ? "no flags." : words.joined(separator: ", ") + ".")]
            }
        }
    }
}
