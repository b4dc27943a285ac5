import JSON

/// What a before-hook of a create or update is handed, and how its answer becomes the write.
///
/// LeanEngine hands `beforeSave` and `beforeUpdate` the object with the client's changes applied
/// to the current one (`Increment` by -3 of 10 shows `7`, `Add` the whole array, `Delete` no
/// key, a relation operation the Relation), never the operations themselves; `updatedKeys` says
/// which keys the client changed. The write stays what the client's operations compute inside
/// the storage transaction, so concurrent increments are never lost: a key the hook hands back
/// as it was handed is written with the client's own operation, a key it changed is set to the
/// hook's value, a key it removed is deleted.
struct AppliedWrite: Sendable {
    /// The client's body as it was sent, operations as `__op` JSON.
    let sent: [String: JSONValue]
    /// The object the hook is handed: `current` with the body applied.
    let handed: [String: JSONValue]

    /// Applies `sent` to `current` (the stored object's REST JSON for an update, nothing for a
    /// create). An operation that can't apply to the current value fails here as the write
    /// would (111).
    init(sent: [String: JSONValue], current: [String: JSONValue], normalizer: ValueNormalizer) throws(DataAPIError) {
        let changes = try ObjectChanges(body: DataService.writable(sent), normalizer: normalizer)
        var fields = current
        for (key, change) in changes.fields { fields[key] = try change.applied(to: current[key], field: key) }
        self.sent = sent
        self.handed = fields
    }

    /// The body to write once the hook handed back `returned`, having set or unset `changed`
    /// (nil: not tracked, so judged by value).
    ///
    /// A key the hook didn't touch is never written from its answer: a value that came back
    /// different only by the trip through JavaScript (an ACL without its `false` entries, a number
    /// past 2^53) would otherwise overwrite a concurrent write with what was read before the hook.
    func body(after returned: [String: JSONValue], changed: Set<String>? = nil) -> [String: JSONValue] {
        let returned = DataService.writable(returned)
        let handed = DataService.writable(self.handed)
        let sent = DataService.writable(self.sent)
        func touched(_ key: String, _ value: JSONValue?) -> Bool {
            if let changed { return changed.contains(key) }
            guard let value, let given = handed[key] else { return true }
            return !Self.same(given, value)
        }
        var body: [String: JSONValue] = [:]
        for (key, value) in returned {
            if touched(key, value) {
                body[key] = value
            } else if let change = sent[key] {
                // Untouched: the client's own change (a stored field the client didn't send isn't written).
                body[key] = change
            }
        }
        for key in handed.keys where returned[key] == nil {
            if touched(key, nil) {
                body[key] = ["__op": "Delete"]
            } else if let change = sent[key] {
                // Untouched, though the answer can't carry it (a field named like the SDK's own).
                body[key] = change
            }
        }
        // What the client removed (or sent as null-like "no value") and the hook left absent.
        for (key, change) in sent where handed[key] == nil && returned[key] == nil { body[key] = change }
        return body
    }

    /// Whether a value came back as it was handed, across a trip through JavaScript: numbers by
    /// value (`2.0` comes back as `2`), a File by its id and URL (the SDK's File keeps no more).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a == b { return true }
        switch (a, b) {
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            if x["__type"] == "File", y["__type"] == "File" {
                return (x["objectId"] ?? x["id"]) == (y["objectId"] ?? y["id"]) && x["url"] == y["url"]
            }
            guard x.count == y.count else { return false }
            return x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default:
            guard a.isNumber, b.isNumber, let x = a.doubleValue, let y = b.doubleValue else { return false }
            return x == y
        }
    }
}
