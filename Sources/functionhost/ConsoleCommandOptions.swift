import ArgumentParser
import FunctionHost

/// The option of `serve` that places the web console (`ConsoleOptions`).
struct ConsoleCommandOptions: ParsableArguments {
    @Option(
        name: .customLong("console"),
        help: "The web console at /console: main (on the main port, the default), admin (only on --admin-port), or off.")
    var console: String = "main"

    /// Sets the console's place in `configuration`, whose admin port is set already.
    func apply(to configuration: inout HostConfiguration) throws {
        guard let placement = ConsoleOptions.Placement(rawValue: console) else {
            throw ValidationError("--console takes main, admin or off.")
        }
        if placement == .admin, configuration.adminPort == nil {
            throw ValidationError("--console admin serves the console on the admin port: give --admin-port too.")
        }
        configuration.console.placement = placement
    }
}
