import JSON

/// Answers File values as LeanCloud does: a stored File names only its `_File` object's id, and
/// every answer (fetch, query, include, wherever the value sits) gets that file's `url`, `name`,
/// `mime_type` and `metaData` from the `_File` object itself, fetched once per answer.
///
/// A file the caller may not read is answered as its reference alone (`__type`, `objectId`):
/// holding an object that names a private file never reveals that file's URL.
struct FileValueResolver: Sendable {
    let storage: any StorageEngine
    /// The caller's identities; nil for the master key, which reads every file.
    var identities: [Identity]?

    /// The `_File` fields a File value carries in answers.
    static let answeredFields = ["name", "url", "mime_type", "metaData", "key", "bucket", "provider", "createdAt", "updatedAt"]

    /// The objects with every File value in their fields answered.
    func resolve(_ objects: [StoredObject]) async throws -> [StoredObject] {
        var ids: Set<String> = []
        for object in objects {
            for value in object.fields.values { Self.collect(value, into: &ids) }
        }
        guard !ids.isEmpty else { return objects }
        var readable: [String: StoredObject] = [:]
        if try await storage.classExists("_File") {
            for file in try await storage.fetch("_File", ids: Array(ids))
            where identities.map({ ACLCheck.allows(file, .read, to: $0) }) ?? true {
                readable[file.objectId] = file
            }
        }
        return objects.map { object in
            var object = object
            object.fields = object.fields.mapValues { Self.answered($0, files: readable) }
            return object
        }
    }

    /// Whether any of the object's fields holds a File value, at any depth.
    static func holdsFiles(_ object: StoredObject) -> Bool {
        var ids: Set<String> = []
        for value in object.fields.values { collect(value, into: &ids) }
        return !ids.isEmpty
    }

    /// The `_File` id a File value names (`objectId`, or `id` as the Objective-C SDK writes it).
    static func fileId(of value: JSONValue) -> String? {
        guard value.typeTag == "File" else { return nil }
        return (value["objectId"] ?? value["id"])?.stringValue
    }

    /// Collects the file ids anywhere in a value: in arrays, nested objects and included objects.
    private static func collect(_ value: JSONValue, into ids: inout Set<String>) {
        switch value {
        case .object(let members):
            if let id = fileId(of: value) {
                ids.insert(id)
            } else {
                for member in members.values { collect(member, into: &ids) }
            }
        case .array(let elements):
            for element in elements { collect(element, into: &ids) }
        default:
            break
        }
    }

    /// A value with its File values answered from `files` (the `_File` objects the caller may read).
    private static func answered(_ value: JSONValue, files: [String: StoredObject]) -> JSONValue {
        switch value {
        case .object(let members):
            guard let id = fileId(of: value) else { return .object(members.mapValues { answered($0, files: files) }) }
            var json: [String: JSONValue] = ["__type": "File", "objectId": .string(id)]
            // Only what the `_File` object says: a URL stored with the value by a client is never echoed.
            guard let file = files[id] else { return .object(json) }
            let stored = file.restJSON()
            for key in answeredFields { json[key] = stored[key] }
            return .object(json)
        case .array(let elements):
            return .array(elements.map { answered($0, files: files) })
        default:
            return value
        }
    }
}
