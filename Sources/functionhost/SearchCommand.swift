import ArgumentParser
import DataAPI
import Foundation
import NIOHTTP1

/// `functionhost search show|on|off`: which classes full-text search (`/1.1/search/select`)
/// is on for, and on which fields, changed on a running server with the master key (LeanCloud
/// sets this in its console; here `/1.1/search/classes` does).
struct SearchCommand: AsyncParsableCommand {
    /// The help text, name and subcommands.
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Show, turn on or turn off full-text search for a class's fields.",
        discussion: """
            Turning search on indexes what the class holds now, and every write keeps the index \
            current. objectId, createdAt and updatedAt are always searchable; at most \
            \(SearchSettings.maxFields) fields per class and \(SearchSettings.maxClasses) classes.
            """,
        subcommands: [SearchShow.self, SearchOn.self, SearchOff.self])

    /// The admin route of one class's search settings.
    static func path(_ className: String) -> String { "/1.1/search/classes/\(className)" }

    /// Refuses a class name the server would refuse, before any request.
    static func validate(className: String) throws {
        guard Names.isValidClassName(className) else {
            throw ValidationError("'\(className)' is not a class name: use letters, digits and _, starting with a letter.")
        }
    }

    /// One class's settings as a line: `GameScore: playerName, title`.
    static func describe(_ settings: [String: Any]) -> String {
        let className = settings["className"] as? String ?? "?"
        let fields = settings["fields"] as? [String] ?? []
        return "\(className): " + (fields.isEmpty ? "objectId, createdAt and updatedAt only" : fields.joined(separator: ", "))
    }
}

/// `functionhost search show`.
struct SearchShow: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print each class search is on for, and its indexed fields.")

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Fetches the settings in force and prints one line per class.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(.GET, "/1.1/search/classes")
            try options.report(answer) { answer in
                let classes = answer.object["results"] as? [[String: Any]] ?? []
                return classes.isEmpty ? ["Search is on for no class."] : classes.map(SearchCommand.describe)
            }
        }
    }
}

/// `functionhost search on <Class> <field>...`.
struct SearchOn: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "on",
        abstract: "Turn search on for a class's fields, or change its fields (the list given replaces the old one).",
        discussion: "Example: functionhost search on GameScore playerName title")

    /// The class.
    @Argument(help: ArgumentHelp("The class.", valueName: "Class"))
    var className: String

    /// The fields indexed from now on.
    @Argument(help: ArgumentHelp("The top-level fields to index.", valueName: "field"))
    var fields: [String]

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses a bad class or field name before any request (the parser refuses no field).
    func validate() throws {
        try SearchCommand.validate(className: className)
        for field in fields where !Names.isValidFieldName(field) {
            throw ValidationError("'\(field)' is not a field name: search indexes top-level fields.")
        }
    }

    /// Sends the fields and prints the settings now in force.
    func run() async throws {
        try await ClientFailure.reporting {
            let body = JSONText.data(["fields": fields])
            let answer = try await options.client().send(.PUT, SearchCommand.path(className), body: body)
            try options.report(answer) { ["Search is on for " + SearchCommand.describe($0.object) + "."] }
        }
    }
}

/// `functionhost search off <Class>`.
struct SearchOff: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "off", abstract: "Turn search off for a class (its index is dropped; its data stays).")

    /// The class.
    @Argument(help: ArgumentHelp("The class.", valueName: "Class"))
    var className: String

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses a bad class name before any request.
    func validate() throws {
        try SearchCommand.validate(className: className)
    }

    /// Turns search off and says so.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(.DELETE, SearchCommand.path(className))
            try options.report(answer) { _ in ["Search is off for \(className)."] }
        }
    }
}
