/// Why an import can't go on: an unreadable file, a damaged archive. (A line that can't be
/// imported is not one of these: it is reported and skipped.)
public struct ImportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for the person running the import.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
