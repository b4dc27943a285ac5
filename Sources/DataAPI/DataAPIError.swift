public import JSON

/// What went wrong in the data layer, with the LeanCloud error code the client will see.
///
/// The code is LeanCloud's number (101, 111, 137, ...); the server maps codes to HTTP statuses in
/// one place. Messages never contain document contents or secrets.
public struct DataAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A LeanCloud error code, or one of the host's own failures (`isHostFailure`).
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The number sent to clients as `code`.
        public let rawValue: Int
        /// Creates a code from its number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// 1: LeanCloud's catch-all, which the data layer uses only for the client's doing (bad
        /// parameters, a locked login); its own failures are 304.
        public static let badParameters = Code(rawValue: 1)
        /// 101: the class or object does not exist (or may not be seen).
        public static let objectNotFound = Code(rawValue: 101)
        /// 122: a file name that can't be stored (empty, too long, or with a path in it).
        public static let invalidFileName = Code(rawValue: 122)
        /// 130: a file that can't be saved: too large for the configured limit.
        public static let fileTooLarge = Code(rawValue: 130)
        /// 102: the query is invalid.
        public static let invalidQuery = Code(rawValue: 102)
        /// 103: invalid class name.
        public static let invalidClassName = Code(rawValue: 103)
        /// 104: missing or invalid objectId.
        public static let missingObjectId = Code(rawValue: 104)
        /// 105: invalid or reserved key name.
        public static let invalidKeyName = Code(rawValue: 105)
        /// 106: malformed Pointer.
        public static let invalidPointer = Code(rawValue: 106)
        /// 107: malformed JSON.
        public static let malformedJSON = Code(rawValue: 107)
        /// 111: a value of the wrong type for its field, or an invalid operation.
        public static let incorrectType = Code(rawValue: 111)
        /// 116: the object is too large.
        public static let objectTooLarge = Code(rawValue: 116)
        /// 117: a read-only field.
        public static let readOnlyField = Code(rawValue: 117)
        /// 119: the operation is not allowed for this caller.
        public static let operationForbidden = Code(rawValue: 119)
        /// 403: the class's permissions don't give the caller this action (LeanCloud's
        /// "Forbidden to find by class permissions.").
        public static let forbiddenByClassPermissions = Code(rawValue: 403)
        /// 121: a nested key contains `$` or `.`.
        public static let invalidNestedKey = Code(rawValue: 121)
        /// 123: invalid ACL.
        public static let invalidACL = Code(rawValue: 123)
        /// 128: invalid relation data.
        public static let invalidRelation = Code(rawValue: 128)
        /// 137: a unique value is taken.
        public static let duplicateValue = Code(rawValue: 137)
        /// 139: a malformed role name, or a change to a role's name.
        public static let invalidRoleName = Code(rawValue: 139)
        /// 300: a CQL statement that doesn't parse.
        public static let cqlSyntax = Code(rawValue: 300)
        /// 302: invalid GeoPoint.
        public static let invalidGeoPoint = Code(rawValue: 302)
        /// 304: the storage engine failed.
        public static let storageFailure = Code(rawValue: 304)
        /// 511: the database can't be reached just now (LeanCloud's "API temporarily
        /// unavailable"); the request may be retried.
        public static let temporarilyUnavailable = Code(rawValue: 511)
        /// 124: the request took too long on the server (LeanCloud's "Request timeout"): a
        /// statement past its `StatementBudget`.
        public static let requestTimeout = Code(rawValue: 124)
        /// 305: a conditional update or delete matched nothing.
        public static let conditionNotMatched = Code(rawValue: 305)
        /// 429: one client holds or asks for more than its share (as the rate limit answers).
        public static let tooManyRequests = Code(rawValue: 429)

        // The host's own failures, numbered past LeanCloud's codes: their messages are for the
        // operator and the log, never for a client (the server answers them as a plain 500).

        /// The file content store failed: the disk, not the client.
        public static let fileStoreFailure = Code(rawValue: 10_001)
        /// An import can't go on: an unreadable file, a damaged archive. (A line that can't be
        /// imported is not one of these: it is reported and skipped.)
        public static let importFailure = Code(rawValue: 10_002)
        /// Something the operator configured can't be used (a key set, a list).
        public static let invalidConfiguration = Code(rawValue: 10_003)

        /// Whether this is one of the host's own failures rather than a code for clients.
        public var isHostFailure: Bool { rawValue >= 10_000 }
    }

    /// The LeanCloud error code.
    public var code: Code
    /// A message for the client.
    public var message: String

    /// Creates an error with a code and a client-facing message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "DataAPIError(\(code.rawValue)): \(message)" }

    /// 305 as LeanCloud words it: a conditional update or delete whose `where` matched nothing.
    public static let noEffect = DataAPIError(.conditionNotMatched, "No effect on updating/deleting a document.")
}

extension DataAPIError {
    /// 107 with the parser's own words: how malformed JSON text reaches a client.
    public init(_ error: JSONSyntaxError) {
        self.init(.malformedJSON, error.message)
    }
}

extension JSONValue {
    /// The deepest stored document read back: deeper than any request may be
    /// (`maxNestingDepth`), as deep as earlier versions let one be written, so every document
    /// they stored still reads, and one deeper still (written past the API) is refused, not a crash.
    package static let maxStoredDepth = 256

    /// Parses JSON text the data layer reads back (stored documents, settings): a failure is
    /// the data layer's 107, like every other error it throws.
    static func parsed(_ bytes: some Collection<UInt8>) throws(DataAPIError) -> JSONValue {
        do {
            return try JSONValue(parsing: bytes, maxDepth: maxStoredDepth)
        } catch {
            throw DataAPIError(error)
        }
    }
}
