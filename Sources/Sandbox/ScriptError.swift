/// What went wrong running JavaScript.
public struct ScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Hashable {
        /// The script threw (or failed to parse): `message` says what, `line` where.
        case exception
        /// The script ran past its CPU-time limit (or its caller's deadline) and was terminated.
        case timeout
        /// The script's heap grew past the memory ceiling and it was terminated.
        case memoryLimit
        /// The call never started: its function (or its client) already held its share of the
        /// workers and the line of calls waiting was full, or the wait passed its bound.
        case busy
    }

    /// The kind of failure.
    public var kind: Kind
    /// The message, as JavaScriptCore reports it.
    public var message: String
    /// The line the exception points at, when known.
    public var line: Int?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, line: Int? = nil) {
        self.kind = kind
        self.message = message
        self.line = line
    }

    public var description: String {
        line.map { "\(message) (line \($0))" } ?? message
    }
}
