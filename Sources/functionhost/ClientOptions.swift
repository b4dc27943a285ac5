import ArgumentParser
import Foundation

/// The options every client subcommand shares: where the server is, whose app, and the output form.
struct ClientOptions: ParsableArguments {
    /// The server's base address; `nil` falls back to `$LEANCLOUD_API_SERVER`, then localhost.
    @Option(
        help: ArgumentHelp(
            "The FunctionHost server (default: $LEANCLOUD_API_SERVER, else http://localhost:3000).", valueName: "url"))
    var server: String?

    /// The app id; `nil` falls back to `$LEANCLOUD_APP_ID`.
    @Option(
        name: .customLong("app-id"),
        help: ArgumentHelp("The app id (default: $LEANCLOUD_APP_ID).", valueName: "id"))
    var appId: String?

    /// The master key; `nil` falls back to `$LEANCLOUD_APP_MASTER_KEY`.
    @Option(
        name: .customLong("master-key"),
        help: ArgumentHelp("The master key (default: $LEANCLOUD_APP_MASTER_KEY).", valueName: "key"))
    var masterKey: String?

    /// Whether to print the server's JSON answer instead of the human text.
    @Flag(help: "Print the server's JSON answer, on one line, instead of a summary.")
    var json = false

    /// Refuses missing credentials or a malformed server address before any request is made.
    func validate() throws {
        _ = try resolved()
    }

    /// The client the options describe, with every environment fallback applied.
    func client() throws -> EngineClient {
        let (server, appId, masterKey) = try resolved()
        return EngineClient(server: server, appId: appId, masterKey: masterKey)
    }

    /// Prints the server's answer on one line with `--json`, else the summary lines made of it.
    func report(_ answer: EngineAnswer, _ summary: (EngineAnswer) throws -> [String]) throws {
        if json {
            print(answer.jsonLine)
        } else {
            for line in try summary(answer) { print(line) }
        }
    }

    /// Applies the environment fallbacks and checks the result.
    private func resolved() throws -> (server: String, appId: String, masterKey: String) {
        let environment = ProcessInfo.processInfo.environment
        var server = nonEmpty(server) ?? nonEmpty(environment["LEANCLOUD_API_SERVER"]) ?? "http://localhost:3000"
        // Paths are appended as "/1.1/...", so a trailing slash would double up.
        while server.hasSuffix("/") { server.removeLast() }
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--server needs an http(s) URL such as http://localhost:3000, not '\(server)'.")
        }
        guard let appId = nonEmpty(appId) ?? nonEmpty(environment["LEANCLOUD_APP_ID"]) else {
            throw ValidationError("Missing app id: pass --app-id or set LEANCLOUD_APP_ID.")
        }
        guard let masterKey = nonEmpty(masterKey) ?? nonEmpty(environment["LEANCLOUD_APP_MASTER_KEY"]) else {
            throw ValidationError("Missing master key: pass --master-key or set LEANCLOUD_APP_MASTER_KEY.")
        }
        return (server, appId, masterKey)
    }

    /// Treats an empty value like an absent one, so `LEANCLOUD_APP_ID=` does not count as set.
    private func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
