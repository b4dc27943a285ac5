/// Which of the two environments a request, a deploy or a hook belongs to, as LeanEngine names
/// them: what a client picks with `X-LC-Prod`, what `functionhost deploy --env` targets.
public enum EnvironmentName: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The environment apps talk to by default.
    case production
    /// Where code is tried before it is promoted (`X-LC-Prod: 0`).
    case staging

    /// The name as written on the wire, in logs and on the command line.
    public var description: String { rawValue }
}
