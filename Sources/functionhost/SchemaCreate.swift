import ArgumentParser
import DataAPI
import Foundation
import NIOHTTP1

/// `functionhost schema create <Class> [--field name:Type ...]`: a new, empty class, as
/// LeanCloud's console created one (`POST /1.1/schemas/{Class}` with the master key).
struct SchemaCreate: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an empty class, with the types of its fields: queries on it then answer no results.",
        discussion: """
            Types: \(FieldType.declarable.map(\.rawValue).joined(separator: ", ")). \
            Example: functionhost schema create Counter --field time:Number --field url:String; \
            then functionhost schema permit Counter update nobody.
            """)

    /// The class and where it is.
    @OptionGroup var target: SchemaTarget

    /// `name:Type` pairs.
    @Option(name: .customLong("field"), help: ArgumentHelp("A field and its type, name:Type; repeatable.", valueName: "name:Type"))
    var fields: [String] = []

    /// Refuses a malformed pair before any request.
    func validate() throws { _ = try descriptors() }

    /// The `fields` member of the request: `{"name": {"type": "Type"}}`.
    func descriptors() throws -> [String: Any] {
        var descriptors: [String: Any] = [:]
        for pair in fields {
            let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, Names.isValidFieldName(parts[0]), parts[0] != "ACL",
                let type = FieldType(rawValue: parts[1]), FieldType.declarable.contains(type)
            else {
                throw ValidationError(
                    "'\(pair)' is not name:Type: give a field name and one of \(FieldType.declarable.map(\.rawValue).joined(separator: ", ")).")
            }
            descriptors[parts[0]] = ["type": type.rawValue]
        }
        return descriptors
    }

    /// Creates the class and says which fields it has.
    func run() async throws {
        try await ClientFailure.reporting {
            let body = JSONText.data(["className": target.className, "fields": try descriptors()])
            let answer = try await target.options.client().send(.POST, "/1.1/schemas/\(target.className)", body: body)
            try target.options.report(answer) { answer in
                let fields = (answer.object["fields"] as? [String: Any] ?? [:]).compactMap { name, descriptor -> String? in
                    guard !Names.builtInFields.contains(name), name != "ACL",
                        let type = (descriptor as? [String: Any])?["type"] as? String
                    else { return nil }
                    return "\(name) (\(type))"
                }
                return ["\(target.className): created" + (fields.isEmpty ? ", with no fields yet." : ", with " + fields.sorted().joined(separator: ", ") + ".")]
            }
        }
    }
}
