import ArgumentParser
import Foundation
import FunctionHost
import Functions
import Logging
import Thumbnails

/// `functionhost`: the FunctionHost server and its tools.
@main
struct FunctionHostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functionhost",
        abstract: "A self-hosted cloud-function runtime and hook host speaking the LeanCloud REST protocol.",
        subcommands: [
            Serve.self, Deploy.self, Promote.self, Rollback.self, Versions.self, Invoke.self, EnvCommand.self, TimersCommand.self, TasksCommand.self, SchemaCommand.self, SearchCommand.self, Logs.self,
            Import.self, FilesCommand.self, IndexesCommand.self, CheckCloudCode.self,
        ],
        defaultSubcommand: Serve.self)
}

/// `functionhost serve [--port N] [--data-dir DIR] [--functions DIR]`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server: on its embedded SQLite storage, or on a shared PostgreSQL database.",
        discussion: """
            Also configured by LEANCLOUD_APP_ID, LEANCLOUD_APP_KEY, LEANCLOUD_APP_MASTER_KEY,
            LEANCLOUD_APP_HOOK_KEY and LEANCLOUD_APP_PORT. Keys that are not given are generated
            once and kept in <data-dir>/keys.json.
            """)

    @Option(help: "The port to listen on (default: $LEANCLOUD_APP_PORT or 3000).")
    var port: Int?

    @Option(help: "The address to listen on.")
    var host: String = "0.0.0.0"

    @Option(name: .customLong("data-dir"), help: "Where the database and keys live.")
    var dataDirectory: String = "./data"

    @Option(name: .customLong("functions"), help: "Where the cloud code lives.")
    var functionsDirectory: String = "./functions"

    @Option(
        name: .customLong("staging-data-dir"),
        help: "Give staging a database of its own in this directory (default: staging shares production's data).")
    var stagingDataDirectory: String?

    @Option(
        name: .customLong("allow-http"),
        help: "Hosts production cloud code may call, comma-separated: api.example.com, *.example.com, host:port, 10.0.0.5 (default: $FUNCTIONHOST_ALLOW_HTTP, else none).")
    var allowHTTP: String?

    @Option(
        name: .customLong("staging-allow-http"),
        help: "The same for staging (default: $FUNCTIONHOST_STAGING_ALLOW_HTTP, else none).")
    var stagingAllowHTTP: String?

    @Option(
        name: .customLong("admin-port"),
        help: "Also serve /metrics on this port, without keys, for the operator's network (default: only on the main port, behind the master key).")
    var adminPort: Int?

    @Option(name: .customLong("admin-host"), help: "The address the admin port listens on.")
    var adminHost: String = "127.0.0.1"

    @Option(
        name: .customLong("rate-limit"),
        help: "Requests a second one client address may send (as many at once); past it, 429 (default: $FUNCTIONHOST_RATE_LIMIT, else no limit).")
    var rateLimit: Double?

    @Option(
        name: .customLong("function-rate-limit"),
        help: "Calls a second a cloud function may take from all callers: name=rate, comma-separated; * for the others (default: $FUNCTIONHOST_FUNCTION_RATE_LIMIT, else no limit).")
    var functionRateLimit: String?

    @OptionGroup var users: UserOptions
    @OptionGroup var console: ConsoleCommandOptions
    @OptionGroup var messages: MessageOptions
    @OptionGroup var smtp: SMTPOptions
    @OptionGroup var files: FileOptions
    @OptionGroup var databases: DatabaseOptions
    @OptionGroup var edge: EdgeOptions
    @OptionGroup var limits: LimitOptions
    @OptionGroup var liveQuery: LiveQueryOptions
    @OptionGroup var queue: QueueCommandOptions
    @OptionGroup var leaderboards: LeaderboardCommandOptions
    @OptionGroup var engine: EngineOptions

    func run() async throws {
        // libvips sets VIPSHOME in the process environment as it starts; started at a first
        // thumbnail, that write raced any process the host spawns then (a LeanEngine's), whose
        // spawn reads the environment. Started here, before the host spawns anything.
        _ = Vips.started
        let environment = ProcessInfo.processInfo.environment
        // Read first, so a bad allow-list stops the command before anything is written (the user
        // options check themselves in `validate`, before `run`).
        let outbound: [EnvironmentName: OutboundPolicy]
        do {
            outbound = [
                .production: try OutboundPolicy(list: allowHTTP ?? environment["FUNCTIONHOST_ALLOW_HTTP"] ?? ""),
                .staging: try OutboundPolicy(
                    list: stagingAllowHTTP ?? environment["FUNCTIONHOST_STAGING_ALLOW_HTTP"] ?? ""),
            ]
        } catch {
            throw ValidationError(error.message)
        }
        let level = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let output = ConsoleOutput()
        LoggingSystem.bootstrap { label in ConsoleLogHandler(label: label, level: level, output: output) }
        // Lines are written in batches by the output's own thread: what waits is written on the
        // way out, the last requests' lines and a failed start's reason among them.
        defer { output.close() }
        let logger = Logger(label: "functionhost")
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let (keys, generated) = try AppKeys.resolve(
            dataDirectory: dataDirectory, appId: environment["LEANCLOUD_APP_ID"],
            appKey: environment["LEANCLOUD_APP_KEY"], masterKey: environment["LEANCLOUD_APP_MASTER_KEY"],
            hookKey: environment["LEANCLOUD_APP_HOOK_KEY"])
        let resolvedPort = port ?? environment["LEANCLOUD_APP_PORT"].flatMap(Int.init) ?? 3000
        var banner = StartupBanner(
            dataDirectory: dataDirectory, host: host, port: resolvedPort, keys: keys, showsSecrets: generated)
        var functions = FunctionRegistry()
        Functions.register(into: &functions)
        var configuration = HostConfiguration(
            host: host, port: resolvedPort, dataDirectory: dataDirectory, functionsDirectory: functionsDirectory,
            keys: keys, functions: functions)
        configuration.outbound = outbound
        configuration.stagingDataDirectory = stagingDataDirectory
        configuration.adminPort = adminPort
        configuration.rateLimits.perClient = rateLimit ?? environment["FUNCTIONHOST_RATE_LIMIT"].flatMap(Double.init)
        if let text = functionRateLimit ?? environment["FUNCTIONHOST_FUNCTION_RATE_LIMIT"], !text.isEmpty {
            guard let rates = RateLimits.functionRates(text) else {
                throw ValidationError("--function-rate-limit takes name=rate pairs, comma-separated, such as checkout=5,*=50.")
            }
            configuration.rateLimits.perFunction = rates
        }
        configuration.adminHost = adminHost
        try users.apply(to: &configuration, environment: environment)
        try messages.apply(to: &configuration, environment: environment)
        try smtp.apply(to: &configuration, environment: environment)
        try files.apply(to: &configuration, environment: environment)
        try databases.apply(to: &configuration, environment: environment)
        try edge.apply(to: &configuration, environment: environment)
        try limits.apply(to: &configuration)
        try liveQuery.apply(to: &configuration)
        try queue.apply(to: &configuration)
        try leaderboards.apply(to: &configuration)
        try engine.apply(to: &configuration)
        try console.apply(to: &configuration)
        try FileOptions.checkFileDomain(of: configuration)
        banner.publicURL = configuration.publicURL
        banner.webOrigins = configuration.webOrigins
        banner.mail = SMTPOptions.summary(of: configuration)
        banner.write()
        try await FunctionHostServer.run(configuration: configuration, logger: logger)
    }
}
