package import JSON

/// The engine-independent part of a write: apply the changes, check each field's type against the
/// class schema, and collect what the engine must record besides the document.
package struct ObjectWrite: Sendable {
    /// The fields after the write.
    public var fields: [String: JSONValue]
    /// The names of the fields the write touched.
    public var changedKeys: [String]
    /// Field types seen for the first time, to record in the schema.
    public var newFieldTypes: [String: FieldType]
    /// Relation members to add and remove, per field.
    public var relationChanges: [RelationChange]

    /// The largest document an object may have, in bytes of JSON.
    public static let maxDocumentSize = 128 * 1024

    /// Applies `changes` to `current`.
    ///
    /// - Parameter typeOf: the recorded type of a field of this class, if any.
    /// - Throws: 111 when a value doesn't fit the field's recorded type or an operation its value.
    public init(
        current: [String: JSONValue], changes: ObjectChanges, typeOf: (String) -> FieldType?
    ) throws(DataAPIError) {
        var fields = current
        var newTypes: [String: FieldType] = [:]
        var relations: [RelationChange] = []
        for key in changes.fields.keys.sorted() {
            let change = changes.fields[key]!
            let result = try change.applied(to: current[key], field: key)
            fields[key] = result
            if let result, key != "ACL", let type = FieldType(of: result) {
                if let recorded = typeOf(key) {
                    guard recorded == type else { throw FieldType.conflict(key, recorded: recorded.rawValue, given: type) }
                } else {
                    newTypes[key] = type
                }
            }
            relations += Self.relationChanges(of: change, field: key)
        }
        self.fields = fields
        self.changedKeys = changes.fields.keys.sorted()
        self.newFieldTypes = newTypes
        self.relationChanges = relations
    }

    /// The relation members a change adds and removes, in order.
    private static func relationChanges(of change: FieldChange, field: String) -> [RelationChange] {
        switch change {
        case .addRelation(let className, let ids):
            return [RelationChange(field: field, targetClass: className, ids: ids, adding: true)]
        case .removeRelation(let className, let ids):
            return [RelationChange(field: field, targetClass: className, ids: ids, adding: false)]
        case .batch(let changes):
            return changes.flatMap { relationChanges(of: $0, field: field) }
        default:
            return []
        }
    }

    /// The stored JSON text of the fields, checked against the size limit (error 116).
    public func document() throws(DataAPIError) -> String {
        let bytes = JSONValue.object(fields).jsonBytes
        guard bytes.count <= Self.maxDocumentSize else {
            throw DataAPIError(.objectTooLarge, "The object is too large: \(bytes.count) bytes, the limit is 128 KB.")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Members added to or removed from one Relation field of one object.
package struct RelationChange: Sendable, Hashable {
    /// The Relation field.
    public var field: String
    /// The class of the related objects.
    public var targetClass: String
    /// The related objects' ids.
    public var ids: [String]
    /// Whether they are added (else removed).
    public var adding: Bool
}
