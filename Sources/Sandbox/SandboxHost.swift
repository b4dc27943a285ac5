public import JSON

/// What cloud code may ask of the host beyond pure computation: the data API, outbound HTTP,
/// other functions. Nothing else crosses out of the sandbox.
///
/// The host gives one value per invocation, so it can carry that invocation's caller, session,
/// environment and deadline; the sandbox never sees them.
public protocol SandboxHost: Sendable {
    /// Performs one operation asked for by the script (`data.find`, `http.request`, ...).
    ///
    /// - Returns: the result as JSON, with LeanCloud's `__type` encoding for typed values.
    /// - Throws: `HostCallError`, which reaches the script as a rejected promise carrying its
    ///   code and message.
    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue
}

/// An operation the host refused or failed, as the script sees it: `error.code`, `error.message`.
public struct HostCallError: Error, Sendable, Hashable {
    /// LeanCloud's error code (101 not found, 119 forbidden, 1 other, ...).
    public var code: Int
    /// What went wrong, for the developer.
    public var message: String
    /// The HTTP status the error answers with when the script lets it through (`error.status`),
    /// for an error that has its own (404 for an unknown function); nil leaves the script's
    /// default.
    public var status: Int?

    /// Creates an error.
    public init(code: Int, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }
}

/// A host that offers nothing: every operation is refused. For code that only computes.
public struct NoHost: SandboxHost {
    /// Creates the host.
    public init() {}

    /// Refuses the operation.
    public func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        throw HostCallError(code: 1, message: "'\(operation.rawValue)' isn't available here.")
    }
}
