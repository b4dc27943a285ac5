import DataAPI
import JSON

/// What the database keeps of one environment (`production` or `staging`): the version it
/// runs, the versions it ran before (for rollback), and its variables, some of them secret.
struct EnvironmentState: Sendable, Hashable {
    /// The environment's name.
    var name: EnvironmentName
    /// The stored record's id; nil until first saved.
    var objectId: String?
    /// The version it runs; nil runs Swift functions only.
    var version: Int?
    /// Every version it was switched to, oldest first; the last is `version`.
    var history: [Int] = []
    /// `process.env` of its code, and `request.variables` of Swift functions.
    var variables: [String: String] = [:]
    /// The variables never shown in an answer or a log.
    var secrets: Set<String> = []
    /// The hash of the functions directory when the host last started (kept on production).
    var seedHash: String?

    /// Switches to a version, remembering it for rollback.
    mutating func switchTo(_ number: Int) {
        version = number
        history.append(number)
        // A long-lived host deploys thousands of times; rollback needs the recent past only.
        if history.count > 100 { history.removeFirst(history.count - 100) }
    }

    /// The variables as an answer shows them: secrets masked.
    var shownVariables: JSONValue {
        .object(Dictionary(uniqueKeysWithValues: variables.map { key, value in (key, secrets.contains(key) ? "******" : .string(value)) }))
    }

    /// The stored record.
    var record: [String: JSONValue] {
        var record: [String: JSONValue] = [
            "name": .string(name.rawValue), "history": .array(history.map { .int(Int64($0)) }),
            "variables": .object(variables.mapValues(JSONValue.string)), "secrets": .array(secrets.sorted().map(JSONValue.string)),
            "ACL": [:],
        ]
        // Neither goes back to nil once set, so a missing key never has to erase one.
        if let version { record["version"] = .int(Int64(version)) }
        if let seedHash { record["seedHash"] = .string(seedHash) }
        return record
    }

    /// Reads a stored record.
    init(record: StoredObject) {
        name = record.fields["name"]?.stringValue.flatMap(EnvironmentName.init(rawValue:)) ?? .production
        objectId = record.objectId
        version = record.fields["version"]?.intValue.map(Int.init)
        history = record.fields["history"]?.arrayValue?.compactMap { $0.intValue.map(Int.init) } ?? []
        variables = record.fields["variables"]?.objectValue?.compactMapValues(\.stringValue) ?? [:]
        secrets = Set(record.fields["secrets"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        seedHash = record.fields["seedHash"]?.stringValue
    }

    /// A new environment.
    init(name: EnvironmentName) {
        self.name = name
    }
}
