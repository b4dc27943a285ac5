import JSON

/// Replaces Pointers named by `include` paths (`author`, `post.author`) with the objects they
/// point to, fetching each class's targets in one batch per level. File values need no include:
/// `FileValueResolver` answers every one of them.
///
/// An object the caller may not get (its ACL, its class's `get` permission, an internal class)
/// stays a Pointer; one it may is answered as the caller's view of it.
///
/// What the answer embeds is weighed level by level, deepest first, and checked against the
/// request's `AnswerBudget` before that level's objects are copied into their places: an
/// object pointing to itself many times is refused for its size before the size is built.
/// Each batch of targets is charged to the budget's rows read as it arrives, so a level of
/// 10 000 large targets stops being read once the budget is spent.
struct IncludeResolver: Sendable {
    /// The caller's rights.
    let access: Access
    /// What the request's answers may still carry.
    let budget: AnswerBudget

    /// The objects with `paths` resolved; they and everything included are charged to the budget.
    func resolve(_ objects: [StoredObject], paths: [String]) async throws -> [StoredObject] {
        // Nothing to include, nothing to weigh: the engine charged these rows as it read them.
        if paths.isEmpty || objects.isEmpty { return objects }
        var weight = AnswerWeight.zero
        for object in objects { weight = weight + .fields(of: object) }
        try budget.check(weight)
        let (resolved, included) = try await resolveLevel(objects, paths: paths)
        for inclusion in included { weight = weight + inclusion }
        try budget.charge(weight)
        return resolved
    }

    /// One level: the objects with their paths resolved, and for each the weight of what was
    /// included into it.
    private func resolveLevel(
        _ objects: [StoredObject], paths: [String]
    ) async throws -> (objects: [StoredObject], included: [AnswerWeight]) {
        var included = [AnswerWeight](repeating: .zero, count: objects.count)
        if paths.isEmpty || objects.isEmpty { return (objects, included) }
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
            var loaded: [String: [String: (object: StoredObject, weight: AnswerWeight)]] = [:]
            for (className, ids) in wanted {
                // Internal classes are never allowed a client (`allows`).
                guard Names.isValidClassName(className), try await access.allows(.get, on: className) else { continue }
                var fetched: [StoredObject] = []
                for object in try await access.storage.fetch(className, ids: Array(ids), charging: budget) where access.canRead(object) {
                    // The view first: a hidden field's Pointer is not followed.
                    fetched.append(try await access.view(object))
                }
                let deeper = try await resolveLevel(fetched, paths: rest)
                var byId: [String: (object: StoredObject, weight: AnswerWeight)] = [:]
                for (index, object) in deeper.objects.enumerated() where byId[object.objectId] == nil {
                    let own = AnswerWeight.fields(of: fetched[index]) + AnswerWeight(objects: 1, bytes: 0)
                    byId[object.objectId] = (object, own + deeper.included[index])
                }
                loaded[className] = byId
            }
            // Weigh this level before building it: every object here is in the answer.
            var level = AnswerWeight.zero
            for index in result.indices {
                for pointer in Self.pointers(in: result[index].fields[field]) {
                    guard let weight = loaded[pointer.className]?[pointer.id]?.weight else { continue }
                    included[index] = included[index] + weight
                }
                level = level + included[index]
            }
            try budget.check(level)
            for index in result.indices {
                guard let value = result[index].fields[field] else { continue }
                result[index].fields[field] = Self.replacing(value, with: loaded)
            }
        }
        return (result, included)
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

    private static func replacing(
        _ value: JSONValue, with loaded: [String: [String: (object: StoredObject, weight: AnswerWeight)]]
    ) -> JSONValue {
        switch value {
        case .object where value.typeTag == "Pointer":
            guard let className = value["className"]?.stringValue, let id = value["objectId"]?.stringValue,
                let object = loaded[className]?[id]?.object
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
