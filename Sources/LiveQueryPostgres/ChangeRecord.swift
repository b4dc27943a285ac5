import DataAPI
import LiveQuery
import JSON

/// A change as a row of the change table holds it: one JSON object.
enum ChangeRecord {
    /// The change as JSON text.
    static func encode(_ change: CommittedChange) -> String {
        var record: [String: JSONValue] = [
            "kind": .string(change.kind.rawValue), "class": .string(change.className), "object": .object(change.object),
            "keys": .array(change.updatedKeys.map(JSONValue.string)), "environment": .string(change.environment.rawValue),
        ]
        if let original = change.original { record["original"] = .object(original) }
        return JSONValue.object(record).jsonString
    }

    /// The change a row holds; nil for text that is not one.
    static func decode(_ text: String) -> CommittedChange? {
        // The objects were stored within the nesting limit; the record wraps them in two levels.
        guard let record = (try? JSONValue(parsing: text, maxDepth: JSONValue.maxNestingDepth + 2))?.objectValue,
            let kind = record["kind"]?.stringValue.flatMap(CommittedChange.Kind.init(rawValue:)),
            let className = record["class"]?.stringValue, let object = record["object"]?.objectValue,
            let environment = record["environment"]?.stringValue.flatMap(EnvironmentName.init(rawValue:)),
            let keys = record["keys"]?.arrayValue
        else { return nil }
        return CommittedChange(
            kind: kind, className: className, object: object, original: record["original"]?.objectValue,
            updatedKeys: keys.compactMap(\.stringValue), environment: environment)
    }
}
