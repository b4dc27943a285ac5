import JSON

/// Replaces Pointers named by `include` paths (`author`, `post.author`) with the objects they
/// point to, fetching each class's targets in one batch per level. File values need no include:
/// `FileValueResolver` answers every one of them.
///
/// An object the caller may not get (its ACL, its class's `get` permission, an internal class)
/// stays a Pointer; one it may is answered as the caller's view of it.
struct IncludeResolver: Sendable {
    /// The caller's rights.
    let access: Access

    func resolve(_ objects: [StoredObject], paths: [String]) async throws -> [StoredObject] {
        if paths.isEmpty || objects.isEmpty { return objects }
        // Group by first segment so `post` and `post.author` share one fetch of the posts.
        var tails: [String: [String]] = [:]
        for path in paths {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            guard let head = parts.first, !head.isEmpty else { continue }
            tails[head, default: []] += parts.count > 1 ? [parts[1]] : []
        }
        var result = objects
        for (field, rest) in tails.sorted(by: { $0.key < $1.key }) {
            var wanted: [String: Set<String>] = [:]
            for object in result {
                for pointer in Self.pointers(in: object.fields[field]) {
                    wanted[pointer.className, default: []].insert(pointer.id)
                }
            }
            var loaded: [String: [String: StoredObject]] = [:]
            for (className, ids) in wanted {
                // Internal classes are never allowed a client (`allows`).
                guard Names.isValidClassName(className), try await access.allows(.get, on: className) else { continue }
                var fetched: [StoredObject] = []
                for object in try await access.storage.fetch(className, ids: Array(ids)) where access.canRead(object) {
                    // The view first: a hidden field's Pointer is not followed.
                    fetched.append(try await access.view(object))
                }
                fetched = try await resolve(fetched, paths: rest)
                loaded[className] = Dictionary(fetched.map { ($0.objectId, $0) }, uniquingKeysWith: { a, _ in a })
            }
            for index in result.indices {
                guard let value = result[index].fields[field] else { continue }
                result[index].fields[field] = Self.replacing(value, with: loaded)
            }
        }
        return result
    }

    private static func pointers(in value: JSONValue?) -> [(className: String, id: String)] {
        switch value {
        case .object? where value?.typeTag == "Pointer":
            guard let className = value?["className"]?.stringValue, let id = value?["objectId"]?.stringValue else {
                return []
            }
            return [(className, id)]
        case .array(let elements)?:
            return elements.flatMap { pointers(in: $0) }
        default:
            return []
        }
    }

    private static func replacing(_ value: JSONValue, with loaded: [String: [String: StoredObject]]) -> JSONValue {
        switch value {
        case .object where value.typeTag == "Pointer":
            guard let className = value["className"]?.stringValue, let id = value["objectId"]?.stringValue,
                let object = loaded[className]?[id]
            else { return value }
            var json = object.restJSON()
            json["__type"] = "Object"
            json["className"] = .string(className)
            return .object(json)
        case .array(let elements):
            return .array(elements.map { replacing($0, with: loaded) })
        default:
            return value
        }
    }
}
