import ArgumentParser
import DataAPI
import Foundation
import FunctionHost

/// The options of `serve` for an app's own LeanEngine process, per environment: a command the
/// host starts and supervises, or the URL of one already running.
struct EngineOptions: ParsableArguments {
    @Option(
        name: .customLong("engine-command"),
        help: ArgumentHelp(
            "Run production's LeanEngine app with this shell command (node server.js, python wsgi.py, gunicorn ...), started with LeanEngine's variables and restarted when it exits.",
            valueName: "command"))
    var command: String?

    @Option(
        name: .customLong("engine-url"),
        help: ArgumentHelp("Call production's LeanEngine app already running at this URL instead.", valueName: "url"))
    var url: String?

    @Option(
        name: .customLong("engine-directory"),
        help: ArgumentHelp("The directory --engine-command runs in (default: the current one).", valueName: "dir"))
    var directory: String?

    @Option(name: .customLong("staging-engine-command"), help: ArgumentHelp("The same for staging.", valueName: "command"))
    var stagingCommand: String?

    @Option(name: .customLong("staging-engine-url"), help: ArgumentHelp("The same for staging.", valueName: "url"))
    var stagingURL: String?

    @Option(
        name: .customLong("staging-engine-directory"),
        help: ArgumentHelp("The directory --staging-engine-command runs in (default: --engine-directory's).", valueName: "dir"))
    var stagingDirectory: String?

    @Option(
        name: .customLong("engine-start-timeout"),
        help: "Seconds a started engine has to answer its metadatas before it is started again (default 30).")
    var startTimeout: Double?

    /// Refuses a command and a URL for the same environment, and URLs that aren't http(s).
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration)
    }

    /// Applies the options to a configuration.
    func apply(to configuration: inout HostConfiguration) throws {
        let current = FileManager.default.currentDirectoryPath
        let settings: [(EnvironmentName, String?, String?, String)] = [
            (.production, command, url, directory ?? current),
            (.staging, stagingCommand, stagingURL, stagingDirectory ?? directory ?? current),
        ]
        for (environment, command, url, directory) in settings {
            let flag = environment == .production ? "--engine" : "--staging-engine"
            var setting: EngineSetting
            switch (command, url) {
            case (nil, nil): continue
            case (let command?, nil):
                guard !command.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("\(flag)-command is empty.") }
                setting = EngineSetting(.command(command, directory: directory))
            case (nil, let url?):
                guard let parsed = URLComponents(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host?.isEmpty == false,
                    parsed.query == nil
                else {
                    throw ValidationError("\(flag)-url takes an http(s) URL such as http://127.0.0.1:3000.")
                }
                setting = EngineSetting(.url(url))
            case (.some, .some):
                throw ValidationError("Give \(flag)-command or \(flag)-url, not both.")
            }
            if let startTimeout {
                guard startTimeout > 0, startTimeout <= 3600 else { throw ValidationError("--engine-start-timeout takes 1 to 3600 seconds.") }
                setting.startTimeout = .milliseconds(Int(startTimeout * 1000))
            }
            configuration.engines[environment] = setting
        }
    }
}
