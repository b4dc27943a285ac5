package import JSON

/// What a write does to one field: store a value, or apply an atomic operation.
package enum FieldChange: Sendable, Hashable {
    /// Store this (normalized) value.
    case set(JSONValue)
    /// Remove the field.
    case delete
    /// Add `amount` to a number (Increment, or Decrement with the sign flipped).
    case increment(JSONValue)
    /// Append the elements to an array.
    case add([JSONValue])
    /// Append the elements that are not in the array yet.
    case addUnique([JSONValue])
    /// Remove every occurrence of the elements from the array.
    case remove([JSONValue])
    /// Add objects to a Relation.
    case addRelation(className: String, ids: [String])
    /// Remove objects from a Relation.
    case removeRelation(className: String, ids: [String])
    /// Bitwise and/or/xor with an integer.
    case bitAnd(Int64), bitOr(Int64), bitXor(Int64)
    /// Several relation changes to one field in one write, in order (`__op: "Batch"`, which
    /// the JS SDK sends when a relation gains and loses members in one save).
    case batch([FieldChange])
}

/// The fields a create or update writes, parsed and checked from a request body.
package struct ObjectChanges: Sendable, Hashable {
    /// The change of each field.
    public var fields: [String: FieldChange]
    /// The id a created object gets, when it was promised before the object existed (a file's,
    /// handed out with its upload token); nil for a new id.
    public var objectId: String?

    /// Creates changes from already checked field changes.
    public init(fields: [String: FieldChange] = [:]) {
        self.fields = fields
    }

    /// Parses a request body (`{"title": "x", "count": {"__op": "Increment", "amount": 1}}`).
    ///
    /// Transport fields the SDKs put in bodies (`_method`, `_ApplicationId`, `_MasterKey`, ...)
    /// are not data: they are skipped here, so a key never ends up stored in an object.
    public init(body: [String: JSONValue], normalizer: ValueNormalizer) throws(DataAPIError) {
        var fields: [String: FieldChange] = [:]
        for (key, value) in body {
            if Names.transportKeys.contains(key) { continue }
            if key == "__ignore_hooks" || key == "__before" || key == "__after" { continue }
            guard Names.isValidFieldName(key) else {
                if Names.builtInFields.contains(key) {
                    throw DataAPIError(.invalidKeyName, "\(key) is a built-in field and can't be written.")
                }
                throw DataAPIError(.invalidKeyName, "Invalid key name '\(key)': use letters, digits and _ (not a leading __ or a reserved name).")
            }
            if key == "ACL" {
                // Every SDK sends `"ACL": null` for an object it gave no ACL: no ACL given.
                if value == .null { continue }
                fields[key] = .set(try ACL.validated(value))
                continue
            }
            fields[key] = try Self.change(for: value, field: key, normalizer: normalizer)
        }
        self.fields = fields
    }

    private static func change(
        for value: JSONValue, field: String, normalizer: ValueNormalizer
    ) throws(DataAPIError) -> FieldChange {
        guard case .object(let members) = value, let opValue = members["__op"] else {
            return .set(try normalizer.normalize(value, field: field))
        }
        guard case .string(let op) = opValue else { throw DataAPIError(.incorrectType, "Invalid __op for \(field).") }
        // A hash where an operation takes a list (`{"__op":"add","objects":{"k":"v"}}`, what the
        // PHP SDK's suite sends) is refused as LeanCloud refuses it: code 1, whatever the op.
        if case .object? = members["objects"] {
            throw DataAPIError(.badParameters, "The objects of \(op) on \(field) must be an array, not an object.")
        }
        switch op {
        case "Delete":
            return .delete
        case "Increment", "Decrement":
            let amount = members["amount"] ?? .int(1)
            guard amount.isNumber, amount.doubleValue?.isFinite == true else {
                throw DataAPIError(.incorrectType, "\(op) of \(field) needs a finite numeric amount.")
            }
            if op == "Increment" { return .increment(amount) }
            switch amount {
            case .int(let i) where i != .min: return .increment(.int(-i))
            case .int(let i): return .increment(.double(-Double(i)))
            default: return .increment(.double(-(amount.doubleValue ?? 0)))
            }
        case "Add", "AddUnique", "Remove":
            guard case .array(let objects)? = members["objects"] else {
                throw DataAPIError(.incorrectType, "\(op) of \(field) needs an objects array.")
            }
            let normalized = try objects.map { (element) throws(DataAPIError) in
                try normalizer.normalize(element, field: field)
            }
            switch op {
            case "Add": return .add(normalized)
            case "AddUnique": return .addUnique(normalized)
            default: return .remove(normalized)
            }
        case "AddRelation", "RemoveRelation":
            guard case .array(let objects)? = members["objects"], !objects.isEmpty, objects.count <= 1000 else {
                throw DataAPIError(.invalidRelation, "\(op) of \(field) needs 1 to 1000 pointers in objects.")
            }
            var className: String?
            var ids: [String] = []
            for object in objects {
                guard case .object(let pointer) = try normalizer.normalize(object, field: field),
                    pointer["__type"] == "Pointer", case .string(let target)? = pointer["className"],
                    case .string(let id)? = pointer["objectId"]
                else { throw DataAPIError(.invalidRelation, "\(op) of \(field) takes Pointers only.") }
                if let className, className != target {
                    throw DataAPIError(.invalidRelation, "A relation holds objects of one class only (\(field)).")
                }
                className = target
                ids.append(id)
            }
            return op == "AddRelation"
                ? .addRelation(className: className!, ids: ids) : .removeRelation(className: className!, ids: ids)
        case "Batch":
            // As Parse and LeanCloud serve it: AddRelation and RemoveRelation only, one class.
            guard case .array(let ops)? = members["ops"], !ops.isEmpty else {
                throw DataAPIError(.malformedJSON, "Batch of \(field) needs an ops array.")
            }
            let changes = try ops.map { (op) throws(DataAPIError) in try change(for: op, field: field, normalizer: normalizer) }
            var target: String?
            for change in changes {
                switch change {
                case .addRelation(let className, _), .removeRelation(let className, _):
                    if let target, target != className {
                        throw DataAPIError(.invalidRelation, "A relation holds objects of one class only (\(field)).")
                    }
                    target = className
                default:
                    throw DataAPIError(.malformedJSON, "Batch of \(field) may hold only AddRelation and RemoveRelation.")
                }
            }
            return .batch(changes)
        case "BitAnd", "BitOr", "BitXor":
            guard case .int(let operand)? = members["value"] else {
                throw DataAPIError(.incorrectType, "\(op) of \(field) needs an integer value.")
            }
            switch op {
            case "BitAnd": return .bitAnd(operand)
            case "BitOr": return .bitOr(operand)
            default: return .bitXor(operand)
            }
        default:
            throw DataAPIError(.incorrectType, "Unknown operation \(op) on \(field).")
        }
    }
}
