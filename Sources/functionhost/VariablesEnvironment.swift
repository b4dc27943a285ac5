import ArgumentParser

/// The `--env` of the `env` subcommands: whose variables they list or change.
struct VariablesEnvironment: ParsableArguments {
    /// The environment; production unless told.
    @Option(
        name: .customLong("env"),
        help: ArgumentHelp("The environment whose variables these are.", valueName: "environment"))
    var environment: DeployEnvironment = .production
}
