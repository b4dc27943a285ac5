public import DataAPI
public import Foundation
public import Hooks
public import Sandbox
public import JSON
public import LiveQuery
public import Mail
public import S3Storage
public import Thumbnails

/// Everything the server needs to start.
public struct HostConfiguration: Sendable {
    /// The address to listen on.
    public var host: String
    /// The port to listen on (0 picks a free one).
    public var port: Int
    /// Where the database and generated keys live.
    public var dataDirectory: String
    /// Where the user's cloud code lives.
    public var functionsDirectory: String
    /// The application's credentials.
    public var keys: AppKeys
    /// The largest request body accepted, in bytes (batch requests are the largest).
    public var maxBodySize: Int
    /// The Swift cloud functions to serve.
    public var functions: FunctionRegistry
    /// How long a JavaScript function may run (wall clock; CPU time is held to two thirds of it).
    public var javaScriptTimeout: Duration = .seconds(15)
    /// The JavaScript workers of each environment's code and how calls share them (threads, the
    /// share of one function and of one client, the line, host calls per invocation, background
    /// work and its host calls); the defaults are `CloudCode.Pool`'s, listed in README "Bounds
    /// and budgets".
    public var javaScriptPool = CloudCode.Pool()
    /// GC stress, for tests: the sandbox runs a full JavaScriptCore collection before every
    /// step of every call, where a value the collector can't see would be freed.
    public var javaScriptCollectsGarbageBeforeEachStep = false
    /// Each environment's own engine, called for the functions and hooks it defines (none by default).
    public var engines: [EnvironmentName: EngineSetting] = [:]
    /// The requests passed to those engines as the app's own web pages (none by default).
    public var engineWeb = EngineWebRoutes()
    /// Whether clients may query `_User` (LeanCloud keeps it closed).
    public var openUserQueries = false
    /// Whether any client reads, counts and marks read any user's status inbox by naming it, as
    /// LeanCloud's server let it (`Statuses.openInboxes`); closed by default.
    public var openStatusInboxes = false
    /// The clock login lockouts and `X-LC-Sign` timestamps are measured with.
    public var clock: @Sendable () -> Date = { Date() }
    /// Deadlines and nesting depth of hooks.
    public var hookLimits = HookDispatcher.Limits()
    /// Called with every after-hook failure, besides the log (for metrics and tests).
    public var onAfterHookFailure: (@Sendable (HookDispatcher.Failure) -> Void)?
    /// Who hears every committed write of an app class, whatever path made it (the source
    /// LiveQuery and jobs subscribe to); see `WriteListener`.
    public var writeListeners: [any WriteListener] = []
    /// The feed committed writes reach LiveQuery's subscriptions by; nil uses this host's own
    /// (`LocalChangeFeed`): several hosts on one PostgreSQL database set one that goes through it.
    public var changeFeed: (any ChangeFeed)?
    /// Whether LiveQuery subscribers hear writes made on other hosts sharing the PostgreSQL
    /// database (its change table). On by default: a write of a class some host's subscriptions
    /// watch (recorded in the database, with a lease) is announced through it (a read of the
    /// object and a short transaction under a lock all hosts share); other writes cost a lookup in
    /// memory. Off, each host's subscribers hear the writes made through that host only.
    public var liveQueryAcrossHosts = true
    /// The bounds of LiveQuery's subscriptions (how many, how large, how long without a connection).
    public var liveQueryLimits = LiveQueryLimits()
    /// Where each environment's cloud code may send HTTP requests, keyed by environment name
    /// (`production`, `staging`); an environment without a policy may reach no host.
    public var outbound: [EnvironmentName: OutboundPolicy] = [:]
    /// How verification codes and links behave (lifetimes, rate limits, what a signup is sent).
    public var verification = UserVerification.Settings()
    /// Captchas, send limits and the SMS text clients may choose.
    public var messageProtection = MessageProtection()
    /// Where verification messages go; nil keeps them in the outbox (`_Outbox`), or posts them
    /// to `messageWebhook` when one is set.
    public var messageSender: (any MessageSender)?
    /// A URL each verification message is POSTed to, as JSON.
    public var messageWebhook: URL?
    /// The SMTP server email goes through (else the webhook or outbox), and where the mail
    /// templates are.
    public var mail = MailOptions()
    /// A data directory of staging's own; nil shares production's data (LeanEngine's way).
    public var stagingDataDirectory: String?
    /// The PostgreSQL database objects live in; nil keeps them in SQLite under the data
    /// directory. Several hosts given the same database serve the same app.
    package var database: PostgresLocation?
    /// With `database` and `stagingDataDirectory` both set, staging's own database is this
    /// PostgreSQL one rather than SQLite.
    package var stagingDatabase: PostgresLocation?
    /// How often a host checks the database for deploys made through another host (a second
    /// host's deploy, promote or rollback is live here within this interval).
    public var deployCheckInterval: Duration = .milliseconds(250)
    /// The address clients reach the server at (`https://api.example.com`): the start of links in
    /// emails and of file URLs. Nil refuses to email links (400, code 1) and gives file URLs the
    /// address the connection reached; the request's `Host` is never used.
    public var publicURL: String?
    /// The proxies whose `X-Forwarded-For` / `X-Real-IP` name the client (none by default).
    public var trustedProxies = TrustedProxies.none
    /// The origins web pages may call the API from (LeanCloud's Web security domains): every
    /// origin by default.
    public var webOrigins = WebOrigins.any
    /// The origins browser pages may open the realtime (LiveQuery) socket from; nil: the same
    /// as `webOrigins`, as LeanCloud's Web security domains bind its realtime service too. A
    /// page elsewhere is closed with 4110 (its SDK then gives up); an upgrade without an
    /// `Origin` (the mobile SDKs send none) is not bound.
    public var realtimeOrigins: WebOrigins?
    /// How far an `X-LC-Sign` timestamp may be from the server's clock, either way: a signature
    /// seen once is a credential only this long.
    public var signatureWindow: TimeInterval = 15 * 60
    /// The request rates admitted per client address and per function (none by default).
    public var rateLimits = RateLimits()
    /// How long one database read or write may run before it is stopped and answered 124
    /// (5 s by default).
    public var statementBudget = StatementBudget()
    /// Idle and read timeouts of client connections, and how many one address may hold open.
    public var connectionLimits = ConnectionLimits()
    /// The bounds of each realtime (LiveQuery WebSocket) connection.
    public var realtimeLimits = RealtimeLimits()
    /// The subscriptions realtime connections log in to, in place of the host's own LiveQuery
    /// hub (a test that pushes events itself); nil, the default, is the hub.
    public var liveQueryConnections: (any LiveQueryConnections)?
    /// A second port serving `/metrics` without keys, for the operator's network; nil serves
    /// them only on the main port, behind the master key.
    public var adminPort: Int?
    /// The address the admin port listens on.
    public var adminHost = "127.0.0.1"
    /// The web console at `/console`: on the main port (default), the admin port, or off; and
    /// how long its sessions last.
    public var console = ConsoleOptions()
    /// The ACL objects of a class get when their creator gives none (`creator` stands for the
    /// creating user): `["Todo": ["*": ["read": true], "creator": ["write": true]]]`.
    public var defaultACLs: [String: JSONValue] = [:]
    /// Column default values, by class and field: what a new object's field holds when its
    /// creator gives none (LeanCloud's console sets these per column).
    public var fieldDefaults: [String: [String: JSONValue]] = [:]
    /// Whether clients with no signed-in user may create roles, as LeanCloud's default `_Role`
    /// permissions allow (`--anyone-creates-roles`); off, only signed-in users and the master key.
    public var anyoneCreatesRoles = false
    /// The largest file accepted, in bytes (LeanCloud's 100 MB by default).
    public var maxFileSize = HostConfiguration.defaultMaxFileSize

    /// `maxFileSize` when none is given: 100 MB (also the import's limit for a downloaded file).
    public static let defaultMaxFileSize = 100 * 1024 * 1024
    /// Whether a file's owner may delete it without the master key (LeanCloud's "delete" file
    /// permission, closed by default).
    public var ownersMayDeleteFiles = false
    /// The S3-compatible bucket files' bytes are kept in (`--files-s3-*`); nil keeps them in
    /// `filesDirectory`, on this host's disk.
    public var s3Files: S3Settings?
    /// Whether `GET /files/{key}` answers 302 to a short-lived presigned URL of the bucket
    /// (`--files-redirect`) rather than streaming the bytes through the host; only with `s3Files`.
    public var filesRedirect = false
    /// Whether a key the bucket lacks is read from `filesDirectory` (`--files-s3-fallback`), while
    /// `functionhost files migrate` copies files there from disk; only with `s3Files`.
    public var filesFallBackToDisk = false
    /// The host name files have of their own (`--files-url`): new files' URLs are under it, and
    /// requests to it are answered with files only; nil puts files under the API's `/files/`.
    public var fileDomain: FileDomain?
    /// What third-party accounts (`authData`) need before they sign up, log in or are linked:
    /// an `onAuthData` hook by default; built-in verifiers (`--apple-jwks`) and the providers
    /// trusted unverified (`--trust-unverified-auth-data`) add to that.
    public var authDataVerification = AuthDataVerification()
    /// What one answer (a query, a fetch, a whole `/batch`) may carry: include depth (10) and
    /// paths (50), included objects (10 000) and bytes (64 MB); past them a read is refused (102).
    public var answerLimits = AnswerLimits()
    /// How long one `/batch` runs its items (30 s): every statement has its own budget, and 500
    /// items each spending it would hold a core for 40 minutes; items not started by then
    /// answer 124.
    public var batchTime = Duration.seconds(30)

    /// The Cloud Queue and the timers: whether this host runs them, their bounds and clock.
    public var queue = QueueOptions()
    /// The leaderboards: who writes statistics, and the zone versions end in.
    public var leaderboards = LeaderboardOptions()

    /// Thumbnails at file URLs (`?imageView2/...`): their bounds, slots and disk cache.
    public var thumbnails = ThumbnailOptions()

    /// Creates a configuration; only the keys and data directory have no default.
    public init(
        host: String = "0.0.0.0", port: Int = 3000, dataDirectory: String, functionsDirectory: String = "./functions",
        keys: AppKeys, maxBodySize: Int = 20 * 1024 * 1024, functions: FunctionRegistry = FunctionRegistry()
    ) {
        self.functions = functions
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.functionsDirectory = functionsDirectory
        self.keys = keys
        self.maxBodySize = maxBodySize
    }

    /// Where uploaded files' bytes are kept, inside the data directory.
    public var filesDirectory: URL {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("files")
    }

    /// Whether staging shares production's data (LeanEngine's way): no data directory or
    /// database of its own.
    var stagingSharesData: Bool { stagingDataDirectory == nil && stagingDatabase == nil }

    /// The SQLite database file inside the data directory.
    public var databasePath: String { Self.databasePath(in: dataDirectory) }

    /// The SQLite database file inside a data directory (production's, or staging's own).
    public static func databasePath(in dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("functionhost.sqlite").path
    }
}
