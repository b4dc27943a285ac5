import ArgumentParser
import FunctionHost

/// The option of `serve` that places the web console (`ConsoleOptions`).
struct ConsoleCommandOptions: ParsableArguments {
    @Option(
        name: .customLong("console"),
        help: """
            The web console at /console: main (on the main port, the default), admin (only on --admin-port), or off. \
            With --engine-web-prefix, off unless admin: the app's pages share the main port's origin.
            """)
    var console: String?

    /// Sets the console's place in `configuration`, whose admin port and engine options are set
    /// already.
    func apply(to configuration: inout HostConfiguration) throws {
        // The app's own pages under a prefix are the API's origin: a script one of them runs
        // (an XSS of the app's) could read the console's CSRF token and act as the master key.
        let sharesOrigin = !configuration.engineWeb.prefixes.isEmpty
        guard let placement = ConsoleOptions.Placement(rawValue: console ?? (sharesOrigin ? "off" : "main")) else {
            throw ValidationError("--console takes main, admin or off.")
        }
        if placement == .admin, configuration.adminPort == nil {
            throw ValidationError("--console admin serves the console on the admin port: give --admin-port too.")
        }
        if placement == .main, sharesOrigin {
            throw ValidationError(
                "--console main would share its origin with the app's pages under --engine-web-prefix: use --console admin with --admin-port, or off.")
        }
        configuration.console.placement = placement
    }
}
