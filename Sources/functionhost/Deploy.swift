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

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Reads the files, then uploads them; an empty folder fails before anything is sent.
    func run() async throws {
        try await ClientFailure.reporting {
            let client = try options.client()
            let files = try DeploySources.collect(in: directory)
            // Who deployed, for `versions`: the account and machine the command ran on.
            let user = ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName
            let author = "\(user)@\(ProcessInfo.processInfo.hostName)"
            let body: [String: Any] = [
                "environment": environment.rawValue, "message": message, "files": files, "author": author,
            ]
            let answer = try await client.send(.POST, "/1.1/engine/deploys", body: JSONText.data(body))
            try options.report(answer) { answer in
                let target = answer.string("environment", default: environment.rawValue)
                return ["Deployed version \(try answer.int("version")) to \(target) (hash \(answer.string("hash").prefix(8)))."]
            }
        }
    }
}
