/// Why a call to an app's own engine (a LeanEngine process) didn't give an answer the host can
/// use. Functions and hooks map it to what their callers see (`EngineFunctions`, `EngineHooks`).
enum EngineError: Error, Sendable, Equatable {
    /// The engine can't be reached: not running, restarting, or refusing connections. Callers
    /// are answered at once rather than made to wait.
    case unreachable(String)
    /// No answer before the call's deadline.
    case timedOut
    /// The engine answered, but not in LeanEngine's shape (not JSON, or too large).
    case badAnswer(String)
    /// The engine refused the call with a LeanEngine error: its status, code and message.
    case refused(status: Int, code: Int, message: String)

    /// What an operator reads in the logs, and a client in a 503's message.
    var description: String {
        switch self {
        case .unreachable(let reason): "the app's engine is not reachable (\(reason))"
        case .timedOut: "the app's engine did not answer in time"
        case .badAnswer(let reason): "the app's engine gave an answer that isn't LeanEngine's (\(reason))"
        case .refused(let status, let code, let message): "the app's engine refused the call (\(status), code \(code)): \(message)"
        }
    }
}
