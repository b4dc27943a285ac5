public import DataAPI
import Logging
/// What went wrong in the Cloud Queue: the module's one error type. `kind` says what sort of
/// failure it is; the host maps it to an HTTP status in one place (`HostError(mapping:)`).
/// `code` and `message` are what a client sees as `{"code", "error"}`.
public struct CloudQueueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sort of failure, which decides the HTTP status.
    public enum Kind: String, Sendable, Hashable {
        /// The request is malformed or out of bounds (400).
        case badRequest
        /// No such task or timer (404).
        case notFound
        /// A task with that uniqueId is present already (400, code 137).
        case duplicate
        /// The caller may not do this (401/403, decided by the host's authentication).
        case unauthorized
        /// The queue is full (429).
        case tooMany
        /// The database failed (500).
        case storage
    }

    /// LeanCloud's error code where it has one.
    public var code: Int
    /// The message, safe to show to the client (never a stored value).
    public var message: String
    /// The sort of failure.
    public var kind: Kind

    /// Creates an error.
    public init(_ kind: Kind, code: Int, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// A request out of bounds or malformed: LeanCloud's catch-all code 1, status 400.
    public static func badRequest(_ message: String) -> CloudQueueError {
        CloudQueueError(.badRequest, code: 1, message)
    }

    /// A uniqueId taken by a task still kept (137: LeanCloud's code for a value already taken).
    public static func duplicate(uniqueId: String) -> CloudQueueError {
        CloudQueueError(.duplicate, code: 137, "A task with uniqueId '\(uniqueId)' already exists.")
    }

    /// No task with that uniqueId (or its record was swept).
    public static func taskNotFound(_ uniqueId: String) -> CloudQueueError {
        CloudQueueError(.notFound, code: 404, "No task with uniqueId '\(uniqueId)'.")
    }

    /// The queue holds as many waiting tasks as it may.
    public static func queueFull(_ limit: Int, environment: EnvironmentName? = nil) -> CloudQueueError {
        let whose = environment.map { " of \($0.rawValue)" } ?? ""
        return CloudQueueError(.tooMany, code: 429, "Too many tasks queued: at most \(limit)\(whose) may wait at once.")
    }

    /// The database failed; the underlying error is logged, not shown.
    public static let storageFailed = CloudQueueError(.storage, code: 1, "The task store failed; try again.")

    /// What a store's failure becomes for the caller: a queue error as it is, anything else
    /// logged (the database's own words stay in the log) and answered as `storageFailed`.
    static func storage(_ error: any Error, _ what: String, logger: Logger) -> CloudQueueError {
        if let error = error as? CloudQueueError { return error }
        logger.error("\(what) failed", metadata: ["error": "\(error)"])
        return .storageFailed
    }
}
