import ArgumentParser

/// The two environments a deployed version can run in.
enum DeployEnvironment: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// The environment new deploys land in, reached with `X-LC-Prod: 0`.
    case staging
    /// The environment requests reach by default.
    case production
}
