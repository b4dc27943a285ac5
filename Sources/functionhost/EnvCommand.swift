import ArgumentParser

/// `functionhost env list|set|unset`: the environment variables of each deploy environment.
struct EnvCommand: AsyncParsableCommand {
    /// The help text, name and subcommands.
    static let configuration = CommandConfiguration(
        commandName: "env",
        abstract: "Show or change the environment variables cloud code sees.",
        subcommands: [EnvList.self, EnvSet.self, EnvUnset.self])
}
