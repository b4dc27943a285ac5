import Logging

/// What went wrong with a leaderboard call: the module's one error type. `kind` decides the HTTP
/// status, which the host chooses in one place (`HostError(mapping:)`); `code` and `message` are
/// what the client sees as `{"code", "error"}`.
public struct LeaderboardError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sort of failure, which decides the HTTP status.
    public enum Kind: String, Sendable, Hashable {
        /// The request is malformed or out of bounds (400).
        case badRequest
        /// The caller carries no master key where one is needed (401).
        case unauthorized
        /// The caller may not act on this member's statistics (403).
        case forbidden
        /// No such leaderboard, member or version (404).
        case notFound
        /// A leaderboard with that name exists already (400, code 137).
        case duplicate
        /// The database failed (500).
        case storage
    }

    /// LeanCloud's error code where it has one.
    public var code: Int
    /// The message, safe to show to the client.
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

    /// A malformed or out-of-bounds request: LeanCloud's catch-all code 1.
    public static func badRequest(_ message: String) -> LeaderboardError {
        LeaderboardError(.badRequest, code: 1, message)
    }

    /// A management call (create, change, reset, delete, archives, others' statistics) without
    /// the master key: what LeanCloud answers every such call.
    public static let masterKeyRequired = LeaderboardError(.unauthorized, code: 401, "Unauthorized.")

    /// No leaderboard of that name.
    public static func boardNotFound(_ name: String) -> LeaderboardError {
        LeaderboardError(.notFound, code: 404, "Leaderboard '\(name.prefix(64))' not found.")
    }

    /// A `sum` write that would take the kept sum past ±2^53, where a JSON number stops holding
    /// every integer: refused, nothing of the request written.
    public static func sumOutOfRange(_ name: String) -> LeaderboardError {
        .badRequest(
            "Adding to \(name.prefix(LeaderboardInput.maxNameLength)) would take its sum past ±\(Int64(LeaderboardInput.maxValue)); nothing was written.")
    }

    /// The database failed; the underlying error is logged, not shown.
    public static let storageFailed = LeaderboardError(.storage, code: 1, "The leaderboard store failed; try again.")

    /// What a store's failure becomes for the caller: a leaderboard error as it is, anything
    /// else logged and answered as `storageFailed`.
    static func storage(_ error: any Error, _ what: String, logger: Logger) -> LeaderboardError {
        if let error = error as? LeaderboardError { return error }
        logger.error("leaderboards: \(what) failed", metadata: ["error": "\(error)"])
        return .storageFailed
    }
}
