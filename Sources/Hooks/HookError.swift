public import DataAPI

/// Why a hook stopped an operation: LeanCloud's code and message, and what kind of stop it was.
/// The HTTP status it answers with is the host's to choose (`HostError(mapping:)`), from `reason`,
/// `hook` and the status the hook's own code asked for.
public struct HookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of stop it was.
    public enum Reason: Sendable, Hashable {
        /// The hook refused on purpose (it threw).
        case rejected
        /// The hook crashed (an uncaught exception that isn't an error it meant to throw).
        case crashed
        /// The hook ran past its deadline.
        case timedOut
    }

    /// LeanCloud's code: 142 for a hook's rejection unless the hook chose its own.
    public var code: Int
    /// The message for the client.
    public var message: String
    /// The hook's own words, without the storage path's 142 wrapping: what LeanEngine's
    /// platform endpoints answer.
    public var detail: String
    /// What kind of stop it was.
    public var reason: Reason
    /// The HTTP status the hook's own code asked for (a JavaScript error's `status`); nil leaves
    /// the choice to the host.
    public var requestedStatus: Int?
    /// The hook that stopped the operation, once the dispatcher knows it (an `onLogin` refusal
    /// is an unauthorized login, whatever the hook threw).
    public var hook: HookKind?

    /// Creates an error; a hook that rejects a write throws one, with a code of its choosing
    /// and, if it wants one, the HTTP status the client gets (400 otherwise).
    public init(code: Int = 142, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.detail = message
        self.reason = .rejected
        self.requestedStatus = status
    }

    /// Whether the hook crashed rather than rejecting on purpose.
    public var crashed: Bool { reason == .crashed }

    /// A hook failed without choosing a code: LeanCloud's 142 with the hook's own message.
    public static func rejected(_ detail: String, crashed: Bool = false) -> HookError {
        var error = HookError(code: 142, message: "Cloud Code validation failed. Error detail: \(detail)")
        error.detail = detail
        error.reason = crashed ? .crashed : .rejected
        return error
    }

    /// A before-hook ran past its time (LeanCloud: 141, "LeanEngine request timeout.").
    public static func timedOut(_ kind: HookKind, _ className: String) -> HookError {
        var error = HookError(code: 141, message: "LeanEngine request timeout: \(kind.rawValue) of \(className).")
        error.reason = .timedOut
        return error
    }

    public var description: String { "\(code): \(message)" }
}
