public import DataAPI

/// Why a hook stopped an operation, as the client sees it: `{"code", "error"}` and a status.
public struct HookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// LeanCloud's code: 142 for a hook's rejection unless the hook chose its own.
    public var code: Int
    /// The message for the client.
    public var message: String
    /// The HTTP status.
    public var status: Int
    /// The hook's own words, without the storage path's 142 wrapping: what LeanEngine's
    /// platform endpoints answer.
    public var detail: String
    /// Whether the hook crashed (an uncaught exception) rather than rejecting on purpose.
    public var crashed: Bool

    /// Creates an error; a hook that rejects a write throws one.
    public init(code: Int = 142, message: String, status: Int = 400) {
        self.code = code
        self.message = message
        self.status = status
        self.detail = message
        self.crashed = false
    }

    /// A hook failed without choosing a code: LeanCloud's 142 with the hook's own message.
    public static func rejected(_ detail: String, crashed: Bool = false) -> HookError {
        var error = HookError(code: 142, message: "Cloud Code validation failed. Error detail: \(detail)")
        error.detail = detail
        error.crashed = crashed
        return error
    }

    /// A before-hook ran past its time (LeanCloud: 141, "LeanEngine request timeout.").
    public static func timedOut(_ kind: HookKind, _ className: String) -> HookError {
        HookError(code: 141, message: "LeanEngine request timeout: \(kind.rawValue) of \(className).", status: 503)
    }

    public var description: String { "\(code): \(message)" }
}
