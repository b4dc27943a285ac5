/// Who is asking, as far as the data layer needs to know.
public struct Caller: Sendable, Hashable {
    /// Whether the request carries the master key, which bypasses class restrictions.
    public var isMaster: Bool

    /// Creates a caller.
    public init(isMaster: Bool) {
        self.isMaster = isMaster
    }

    /// The master caller, used by the host itself.
    public static let master = Caller(isMaster: true)
}
