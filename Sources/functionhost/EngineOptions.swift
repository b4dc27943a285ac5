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
        name: .customLong("engine-web-host"),
        help: ArgumentHelp(
            "Pass requests for this host name that aren't the API to production's engine, as the app's web pages (stg-<name> goes to staging's).",
            valueName: "name"))
    var webHost: String?

    @Option(
        name: .customLong("engine-web-prefix"),
        help: ArgumentHelp("Pass requests under this path (/app) to production's engine, the prefix taken off.", valueName: "path"))
    var webPrefix: String?

    @Option(name: .customLong("staging-engine-web-prefix"), help: ArgumentHelp("The same for staging.", valueName: "path"))
    var stagingWebPrefix: String?

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
        if let webHost {
            let name = webHost.lowercased()
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else {
                throw ValidationError("--engine-web-host takes a host name such as app.example.com (no scheme, port or path).")
            }
            configuration.engineWeb.host = name
        }
        for (environment, prefix, flag) in [(EnvironmentName.production, webPrefix, "--engine-web-prefix"), (.staging, stagingWebPrefix, "--staging-engine-web-prefix")] {
            guard let prefix else { continue }
            let segments = prefix.split(separator: "/")
            guard prefix.hasPrefix("/"), !prefix.hasSuffix("/"), !segments.isEmpty,
                !EngineWebRoutes.apiSegments.contains(segments[0]),
                prefix.allSatisfy({ $0.isLetter || $0.isNumber || "/-_.".contains($0) })
            else {
                throw ValidationError("\(flag) takes a path such as /app: a leading /, no trailing one, and not one of the API's (/1.1, /files, ...).")
            }
            configuration.engineWeb.prefixes[environment] = prefix
        }
        // Without an engine named here, the pages are a deployed engine app's (`deploy --engine`).
    }
}
