import ArgumentParser
import Foundation
import NIOHTTP1

/// `functionhost deploy [DIR] [--env staging|production] [-m MSG]`.
struct Deploy: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        abstract: "Upload the cloud code in DIR as a new version and run it in an environment.",
        discussion: "Every *.js file below DIR is sent, node_modules folders aside.")

    /// Where the cloud code is.
    @Argument(help: "The cloud code folder.")
    var directory: String = "./functions"

    /// Which environment runs the new version.
    @Option(
        name: .customLong("env"),
        help: ArgumentHelp("The environment that runs the new version.", valueName: "environment"))
    var environment: DeployEnvironment = .staging

    /// A note stored with the version, shown by `versions`.
    @Option(
        name: [.short, .customLong("message")],
        help: ArgumentHelp("A note kept with the version.", valueName: "text"))
    var message: String = ""

    /// Whether DIR is an engine app (a LeanEngine project run in its own process) rather than
    /// cloud code for the sandbox.
    @Flag(help: "Deploy DIR as an engine app: its whole folder, started in a process of its own.")
    var engine = false

    /// The engine app's start command, over its leanengine.yaml's `run`.
    @Option(
        name: .customLong("engine-command"),
        help: ArgumentHelp("With --engine: the command that starts the app (else leanengine.yaml's run, npm start, python3 wsgi.py).", valueName: "command"))
    var engineCommand: String?

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Reads the files, then uploads them; an empty folder fails before anything is sent.
    func run() async throws {
        try await ClientFailure.reporting {
            let client = try options.client()
            // Who deployed, for `versions`: the account and machine the command ran on.
            let user = ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName
            let author = "\(user)@\(ProcessInfo.processInfo.hostName)"
            var body: [String: Any] = ["environment": environment.rawValue, "message": message, "author": author]
            if engine {
                let (files, links) = try EngineAppSources.collect(in: directory)
                for link in links {
                    FileHandle.standardError.write(Data("functionhost: \(link) is a link and is not sent\n".utf8))
                }
                var app: [String: Any] = ["files": files]
                if let engineCommand { app["command"] = engineCommand }
                body["engine"] = app
            } else {
                guard engineCommand == nil else { throw ClientFailure(message: "--engine-command needs --engine") }
                body["files"] = try DeploySources.collect(in: directory)
            }
            let answer = try await client.send(
                .POST, "/1.1/engine/deploys", body: JSONText.data(body), timeout: engine ? EngineClient.deployTimeout : EngineClient.timeout)
            try options.report(answer) { answer in
                let target = answer.string("environment", default: environment.rawValue)
                return ["Deployed version \(try answer.int("version")) to \(target) (hash \(answer.string("hash").prefix(8)))."]
            }
        }
    }
}
