public import JSON

/// An object as storage holds it: its class, id, timestamps and fields (ACL included).
public struct StoredObject: Sendable, Hashable {
    /// The object's class.
    public var className: String
    /// The object's id.
    public var objectId: String
    /// When it was created, canonical ISO text.
    public var createdAt: String
    /// When it was last written, canonical ISO text.
    public var updatedAt: String
    /// The data fields, including `ACL`.
    public var fields: [String: JSONValue]

    /// Creates a stored object.
    public init(className: String, objectId: String, createdAt: String, updatedAt: String, fields: [String: JSONValue]) {
        self.className = className
        self.objectId = objectId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.fields = fields
    }

    /// The object as the REST API returns it: fields plus `objectId`, `createdAt`, `updatedAt`.
    public func restJSON(includeACL: Bool = true) -> [String: JSONValue] {
        var json = fields
        if !includeACL { json["ACL"] = nil }
        // A user's password hash and session never leave the server this way.
        if className == "_User" { for field in DataService.hiddenUserFields { json[field] = nil } }
        json["objectId"] = .string(objectId)
        json["createdAt"] = .string(createdAt)
        json["updatedAt"] = .string(updatedAt)
        return json
    }

    /// A Pointer to this object.
    public var pointer: JSONValue {
        ["__type": "Pointer", "className": .string(className), "objectId": .string(objectId)]
    }
}
