import ArgumentParser
import DataAPI
import Foundation
import NIOHTTP1

/// `functionhost schema show|create|set|permit|field`: a class's permissions and field flags,
/// changed on a running server with the master key (as `PUT /1.1/schemas/{Class}` would), and
/// new empty classes (`POST /1.1/schemas/{Class}`).
struct SchemaCommand: AsyncParsableCommand {
    /// The help text, name and subcommands.
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Create a class, or show or change who may do what on it and which fields clients see.",
        discussion: """
            The settings are LeanCloud's class permissions (get, find, create, update, delete, \
            add_fields) and field flags (hidden, read_only, user_private); the master key is never \
            bound by them.
            """,
        subcommands: [SchemaShow.self, SchemaCreate.self, SchemaSet.self, SchemaPermit.self, SchemaField.self])
}

/// What every schema subcommand starts with: the class, and the server and credentials it is
/// changed through.
struct SchemaTarget: ParsableArguments {
    /// Whose settings.
    @Argument(help: ArgumentHelp("The class.", valueName: "Class"))
    var className: String

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses a class name the server would refuse, before any request.
    func validate() throws {
        guard Names.isValidClassName(className) else {
            throw ValidationError("'\(className)' is not a class name: use letters, digits and _, starting with a letter.")
        }
    }

    /// Sends changes in the export's shape and returns the settings now in force.
    func put(_ body: Data) async throws -> EngineAnswer {
        try await options.client().send(.PUT, "/1.1/schemas/\(className)", body: body)
    }
}

/// `functionhost schema show <Class>`.
struct SchemaShow: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a class's permissions and field flags, in the shape of an export's <Class>_all.json.")

    /// The class and where it is.
    @OptionGroup var target: SchemaTarget

    /// Fetches the settings in force (defaults included) and prints them.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await target.options.client().send(.GET, "/1.1/schemas/\(target.className)/permissions")
            try target.options.report(answer) { [JSONText.pretty($0.object)] }
        }
    }
}

/// `functionhost schema set <Class> <file.json | ->`.
struct SchemaSet: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Apply a settings file to a class: actions given replace those actions, field flags given replace those flags.",
        discussion: """
            The file is {"permissions": {...}, "schema": {...}}: an export's <Class>_all.json or \
            <Class>_permissions.json works as it is (only hidden, read_only and user_private of the \
            schema's field descriptors are read).
            """)

    /// The class and where it is.
    @OptionGroup var target: SchemaTarget

    /// The settings file; `-` reads standard input.
    @Argument(help: ArgumentHelp("The JSON file, or - for standard input.", valueName: "file.json|-"))
    var file: String

    /// Sends the file as it is and prints the settings now in force.
    func run() async throws {
        try await ClientFailure.reporting {
            let body = try document()
            let answer = try await target.put(body)
            try target.options.report(answer) { [JSONText.pretty($0.object)] }
        }
    }

    /// The file's bytes, once they are known to be a settings document: sending anything else
    /// would only change nothing, and say so less clearly than this.
    private func document() throws(ClientFailure) -> Data {
        let name = file == "-" ? "standard input" : file
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard FileManager.default.fileExists(atPath: file) else { throw ClientFailure(message: "no file \(file)") }
            guard let read = FileManager.default.contents(atPath: file) else {
                throw ClientFailure(message: "cannot read \(file)")
            }
            data = read
        }
        guard let object = JSONText.object(data) else {
            throw ClientFailure(message: "\(name) is not a JSON object")
        }
        guard object["permissions"] != nil || object["schema"] != nil else {
            throw ClientFailure(
                message: "\(name) has neither \"permissions\" nor \"schema\": give one shaped like an export's <Class>_all.json")
        }
        return data
    }
}
