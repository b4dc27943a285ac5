import CloudQueue
import DataAPI
import Foundation
import Hooks
public import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Leaderboards
import LiveQuery
import LiveQueryPostgres
public import Logging
import ServiceLifecycle
import S3Storage
import Thumbnails

/// Builds the HTTP application: storage, routes, middleware.
public enum FunctionHostServer {
    /// The application for a configuration, with its database opened (and created): SQLite under
    /// the data directory, or the configured PostgreSQL one. Run it with `runService()`: SIGTERM and SIGINT drain in-flight
    /// requests, then it returns.
    public static func makeApplication(
        configuration: HostConfiguration, logger: Logger = Logger(label: "functionhost")
    ) async throws -> some ApplicationProtocol {
        try DataDirectory.prepare(configuration.dataDirectory)
        try DataDirectory.restrict(URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("keys.json").path)
        let databases = try await Databases.open(configuration, logger: logger)
        do {
            return try await makeApplication(configuration: configuration, databases: databases, logger: logger)
        } catch {
            await databases.close()
            throw error
        }
    }

    /// The application over opened databases.
    private static func makeApplication(
        configuration: HostConfiguration, databases: Databases, logger: Logger
    ) async throws -> some ApplicationProtocol {
        let services = try await makeServices(configuration: configuration, databases: databases, logger: logger)
        // The LAS and MaxLeap dialects are served at the edge, around the router.
        let router = DialectRouter(
            router: makeRouter(configuration: configuration, services: services),
            bodyLimits: BodyLimits(largest: configuration.maxBodySize), answerDepth: configuration.answerLimits.answerDepth)
        var lifetimes: [any Service] = [
            databases.lifetime,
            DeployWatch(deployer: services.deployer, interval: configuration.deployCheckInterval, logger: logger),
            LiveQueryDelivery(hub: services.liveQuery),
        ]
        // Always: an engine app may be deployed to any host, and its process stops with the host.
        lifetimes.append(services.engines)
        // This host's share of the queue's work; off, it still takes enqueues for the others.
        if configuration.queue.runsTasks { lifetimes.append(QueueService(queue: services.queue, timers: services.timers)) }
        if let adminPort = configuration.adminPort {
            lifetimes.append(
                Application(
                    router: makeAdminRouter(configuration: configuration, services: services),
                    configuration: .init(address: .hostname(configuration.adminHost, port: adminPort), serverName: "FunctionHost admin"),
                    logger: logger))
        }
        return Application(
            router: router,
            server: clientServer(configuration, metrics: services.metrics, connections: configuration.liveQueryConnections ?? services.liveQuery),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "FunctionHost"),
            services: lifetimes,
            // The engines reach the host where it listens, known once it does.
            onServerRunning: { [address = services.engines.apiServer] channel in address.record(channel.localAddress) },
            logger: logger)
    }

    /// HTTP/1 for clients, with the connection limits: each connection gated (a cap per client,
    /// its first request's deadlines), its requests guarded (each request's header deadline and
    /// body rate) and closed once idle; `/realtime` upgrades to the realtime WebSocket
    /// (`RealtimeEndpoint`), whose logins attach to `connections`.
    private static func clientServer(
        _ configuration: HostConfiguration, metrics: HostMetrics, connections: any LiveQueryConnections
    ) -> HTTPServerBuilder {
        let limits = configuration.connectionLimits
        let counts = ConnectionCounts(limit: limits.perAddress)
        let gate: @Sendable () -> ConnectionGate = { [proxies = configuration.trustedProxies] in ConnectionGate(counts: counts, limits: limits, proxies: proxies) }
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionGuard(limits: limits)], idleTimeout: .init(limits.idleTimeout))
        let realtime = configuration.realtimeLimits
        let endpoint = RealtimeEndpoint(
            appID: configuration.keys.appId, connections: connections, limits: realtime,
            idleTimeout: realtime.idleTimeout(limits), metrics: metrics,
            budget: RealtimeQueueBudget(limit: realtime.maxQueuedBytesPerAddress), proxies: configuration.trustedProxies,
            origins: configuration.realtimeOrigins ?? configuration.webOrigins)
        // The library's pings are off: the SDKs keep their connections alive themselves, and the
        // gate closes one that sent nothing for the idle time.
        let webSocket = WebSocketServerConfiguration(maxFrameSize: realtime.maxMessageSize, autoPing: .disabled, closeTimeout: realtime.closeGrace)
        return HTTPServerBuilder { responder in
            GatedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: .init(http1: http1, ws: webSocket),
                    shouldUpgrade: { request, channel, _ in endpoint.shouldUpgrade(request, channel: channel) }),
                gate: gate)
        }
    }

    /// The services routes use, over opened databases: the hooked data service, the deployer
    /// with each environment's code loaded, users, files, metrics and logs.
    static func makeServices(configuration: HostConfiguration, databases: Databases, logger: Logger) async throws -> Services {
        let metrics = HostMetrics(now: configuration.clock)
        // Every route and data API uses the hooked service: no write path can miss a hook.
        let engines = databases.engines
        var plain = DataService(
            engines: StorageEngines(
                production: MeasuredStorage(engines.production, metrics: metrics),
                staging: MeasuredStorage(engines.staging, metrics: metrics)))
        plain.openUserQueries = configuration.openUserQueries
        plain.defaultACLs = configuration.defaultACLs
        plain.fieldDefaults = configuration.fieldDefaults
        plain.anyoneCreatesRoles = configuration.anyoneCreatesRoles
        plain.authDataVerification = configuration.authDataVerification
        plain.answerLimits = configuration.answerLimits
        // Identity tokens expire on the server's clock, as logins lock on it.
        plain.authDataVerification.now = configuration.clock
        // Every committed write of a watched class is announced on the change feed LiveQuery's
        // subscriptions hear (others cost no read). On PostgreSQL, the database's feed: every
        // host's writes of a class any host watches reach every host's subscriptions.
        let shared = configuration.changeFeed ?? databases.changeFeed
        if let feed = databases.changeFeed { metrics.addGauges { feed.statistics.gauges } }
        let feed = shared ?? LocalChangeFeed()
        let watched = WatchedClasses()
        // A class this host's subscriptions watch, or one the feed says another host's do (a
        // cached set: an unwatched write costs no statement).
        let interest: @Sendable (String) -> Bool = { watched.contains($0) || feed.announces($0) }
        // A deleted user leaves every leaderboard, whichever way he was deleted. Its records are
        // the host's own, written through the service as it is before listeners (no hooks).
        let deletedUsers = DeletedUserStatistics(leaderboards: Leaderboards(data: plain, logger: logger))
        plain.listeners = configuration.writeListeners + [ChangeFeedPublisher(feed: feed, interest: interest), deletedUsers]
        let functionLogs = FunctionLogs()
        // Each environment loads the version it runs (the functions directory, at first start);
        // its hooks are read from there at every operation.
        let engineRuntime = EngineRuntime(
            apiServer: ListeningAddress(), logs: functionLogs, logger: logger,
            keys: EngineApp.Keys(
                appId: configuration.keys.appId, appKey: configuration.keys.appKey, masterKey: configuration.keys.masterKey,
                hookKey: configuration.keys.hookKey),
            directory: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("engines").path)
        let appEngines = try EngineSupervisor.launches(for: configuration, runtime: engineRuntime)
        let environments = Environments(
            base: configuration.functions,
            settings: .init(
                timeout: configuration.javaScriptTimeout, outbound: configuration.outbound, logger: logger,
                pool: configuration.javaScriptPool, collectsGarbageBeforeEachStep: configuration.javaScriptCollectsGarbageBeforeEachStep,
                engines: appEngines.mapValues(\.engine), runtime: engineRuntime))
        let hooks = HookDispatcher(
            service: plain, hooks: environments, limits: configuration.hookLimits,
            logger: logger.recording(into: functionLogs), onAfterFailure: configuration.onAfterHookFailure,
            onInvocation: { run in
                metrics.recordHook(
                    kind: run.kind.rawValue, className: run.className, environment: run.environment.rawValue, failed: run.failed,
                    duration: run.duration)
            })
        let data = hooks.hookedService
        // Over the hooked service: subscriptions and events run the app's LiveQuery hooks.
        let liveQuery = makeLiveQuery(configuration: configuration, feed: feed, data: data)
        watched.hub = liveQuery
        let sender = try configuration.makeMessageSender(data: data, logger: logger)
        // Every host with the same master key stores and checks codes under the same secret.
        let codeSecret = VerificationCodes.Secret(masterKey: configuration.keys.masterKey)
        var accounts = UserAccounts(data: data, codeSecret: codeSecret, now: configuration.clock)
        accounts.codeLimits = configuration.verification.limits
        let verification = UserVerification(
            data: data, sender: sender, codeSecret: codeSecret, settings: configuration.verificationSettings,
            now: configuration.clock)
        let protection = configuration.messageProtection
        let gate = MessageGate(
            counter: SendCounter(data: data, limits: protection.limits, now: configuration.clock),
            captchas: Captchas(data: data, secret: codeSecret, now: configuration.clock), protection: protection)
        let content: any FileContentStore
        if let s3 = configuration.s3Files {
            let store = S3FileStore(
                settings: s3, spoolDirectory: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("files-spool"),
                logger: logger)
            try await checkBucket(of: store, logger: logger)
            // While files move from disk (`files migrate`), a key the bucket lacks is read there.
            content = configuration.filesFallBackToDisk ? FallbackFileStore(primary: store, fallback: try LocalFileStore(directory: configuration.filesDirectory)) : store
        } else {
            content = try LocalFileStore(directory: configuration.filesDirectory)
        }
        let files = FileService(data: data, content: content, maxSize: configuration.maxFileSize)
        let thumbnails = ThumbnailStore(
            thumbnailer: Thumbnailer(limits: configuration.thumbnails.limits, gate: configuration.thumbnails.gate),
            cache: try ThumbnailCache(
                directory: ThumbnailOptions.directory(in: configuration.dataDirectory), maxBytes: configuration.thumbnails.cacheBytes))
        let invoker = FunctionInvoker(
            environments: environments, data: data, metrics: metrics, logs: functionLogs,
            searchLinks: SearchLinkSource(publicURL: configuration.publicURL, appId: configuration.keys.appId),
            stagingSharesData: configuration.stagingSharesData)
        let queue = CloudQueue(
            data: data, clock: configuration.queue.clock, settings: configuration.queue.settings,
            invoker: invoker.taskInvoker(logger: logger), logger: logger,
            observer: QueueMetricsObserver(metrics: metrics, logger: logger, next: configuration.queue.observer))
        invoker.queue.set(queue)
        // One scheduler: the routes, a deploy's timers.json (applied when its version becomes
        // current, `DeployTimers`) and the service that fires them.
        let timers = TimerScheduler(
            store: TimerStore(data: data, logger: logger), queue: queue, clock: configuration.queue.clock, logger: logger)
        let deployTimers = DeployTimers(
            scheduler: timers, settings: configuration.queue.settings, timeZone: configuration.queue.timersTimeZone, logger: logger)
        let deployer = Deployer(store: DeployStore(data: data), environments: environments, timers: deployTimers)
        try await deployer.start(functionsDirectory: configuration.functionsDirectory)
        let supervisor = EngineSupervisor(
            launches: appEngines.values.sorted { $0.environment.rawValue < $1.environment.rawValue }, environments: environments,
            runtime: engineRuntime)
        return Services(
            data: data, deployer: deployer, accounts: accounts, verification: verification, gate: gate, files: files, thumbnails: thumbnails,
            metrics: metrics, functionLogs: functionLogs, logger: logger,
            liveQuery: liveQuery, invoker: invoker, queue: queue, timers: timers, engines: supervisor)
    }

    /// Runs the server until SIGTERM or SIGINT, which drain in-flight requests first.
    public static func run(configuration: HostConfiguration, logger: Logger) async throws {
        let app = try await makeApplication(configuration: configuration, logger: logger)
        try await app.runService()
    }

    /// What the routes serve requests with, built once by `makeApplication`.
    struct Services: Sendable {
        /// The hooked data service every route uses.
        let data: DataService
        /// Deploys and what each environment runs.
        let deployer: Deployer
        /// Logins and sessions, on the configured clock.
        let accounts: UserAccounts
        /// Codes and links, through the configured sender.
        let verification: UserVerification
        /// What every message a client causes passes first: captchas and send limits.
        let gate: MessageGate
        /// Files: their bytes and their `_File` objects.
        let files: FileService
        /// Thumbnails of image files, made and kept.
        let thumbnails: ThumbnailStore
        /// Requests, calls, hooks and storage, counted.
        let metrics: HostMetrics
        /// The recent lines of functions and hooks.
        let functionLogs: FunctionLogs
        /// The server's logger.
        let logger: Logger
        /// LiveQuery's subscriptions: the REST routes subscribe through it, realtime
        /// connections attach to it (`LiveQueryConnections`).
        let liveQuery: LiveQueryHub
        /// Runs cloud functions, for a client's call and for the host's own (tasks, timers).
        let invoker: FunctionInvoker
        /// The Cloud Queue: tasks enqueued here, run by every host that runs tasks.
        let queue: CloudQueue
        /// The timers, firing into the queue.
        let timers: TimerScheduler
        /// Each environment's own engine, kept serving.
        let engines: EngineSupervisor
    }

    /// The admin port's router: `/metrics` with no keys, and the console with `--console admin`.
    static func makeAdminRouter(configuration: HostConfiguration, services: Services) -> Router<HostRequestContext> {
        let router = Router(context: HostRequestContext.self)
        let (environments, liveQuery) = (services.deployer.environments, services.liveQuery)
        if configuration.console.placement == .admin {
            // The console's requests are read, logged and answered as the main port's are.
            router.add(middleware: edge(configuration, metrics: services.metrics))
            let limiter = RateLimiter(configuration.rateLimits)
            registerConsole(on: router, routes: APIRoutes(configuration: configuration, services: services, limiter: limiter))
        } else {
            router.add(middleware: ErrorMiddleware())
        }
        MetricsRoutes(metrics: services.metrics, gauges: { environments.poolGauges() + liveQuery.gauges }).register(on: router)
        return router
    }

    /// `/metrics` as the main port serves it (behind the master key, or the console's session):
    /// the pools' and realtime gauges, and the queue's waiting tasks read from the database.
    static func metricsRoutes(_ services: Services) -> MetricsRoutes {
        var routes = MetricsRoutes(metrics: services.metrics) {
            [environments = services.deployer.environments, hub = services.liveQuery] in environments.poolGauges() + hub.gauges
        }
        routes.stored = { [data = services.data] in await QueueService.waitingGauges(data: data) }
        return routes
    }

    /// The outer steps every request of a router takes (`EdgeMiddleware`).
    static func edge(_ configuration: HostConfiguration, metrics: HostMetrics) -> EdgeMiddleware {
        EdgeMiddleware(
            facts: RequestFactsReader(proxies: configuration.trustedProxies, bodyLimits: BodyLimits(largest: configuration.maxBodySize)),
            observer: RequestObserver(metrics: metrics), cors: CORSPolicy(origins: configuration.webOrigins))
    }

    /// The versions the API is served under, each with every route.
    static let apiVersions = ["1", "1.1"]

    /// The router with every route and middleware.
    static func makeRouter(configuration: HostConfiguration, services: Services) -> Router<HostRequestContext> {
        let data = services.data
        let router = Router(context: HostRequestContext.self)
        // Order matters: the request's facts (client address, environment, body limit) are read
        // first; every request is logged and counted; CORS answers preflights first; errors are
        // mapped for everything inside. One middleware takes these four steps, in that order.
        router.add(middleware: edge(configuration, metrics: services.metrics))
        let limiter = RateLimiter(configuration.rateLimits)
        if limiter.limitsClients { router.add(middleware: RateLimitMiddleware(limiter: limiter)) }
        let downloads = FileDownloads(
            files: services.files, thumbnails: FileThumbnails(store: services.thumbnails), redirects: configuration.filesRedirect)
        // The file domain's requests are files only, before anything else could route them.
        if let domain = configuration.fileDomain {
            router.add(middleware: FileDomainMiddleware(domain: domain, downloads: downloads))
        }
        // The app's own web pages go to its engine, counted, logged and limited as the API is.
        if configuration.engineWeb != EngineWebRoutes() {
            router.add(
                middleware: EngineWebMiddleware(
                    routes: configuration.engineWeb,
                    proxy: EngineWebProxy(environments: services.deployer.environments, maxBodySize: configuration.maxBodySize)))
        }
        let authentication = AuthMiddleware(
            authenticator: Authenticator(
                keys: configuration.keys, signatureWindow: configuration.signatureWindow, now: configuration.clock),
            data: data, webOrigins: configuration.webOrigins,
            stagingSharesData: configuration.stagingSharesData)
        router.add(middleware: UnmatchedRouteMiddleware(authentication: authentication))
        // Where a route is registered says who may call it: the open routes here, everything
        // else in an authenticated group, the operator's own routes in master-only groups inside
        // it. `RouteAccessTests` checks the open list.
        EngineRoutes().register(on: router)
        OpenAPIRoutes(version: EngineRoutes.version).register(on: router)
        downloads.register(on: router)
        RealtimeRouteLookup(publicURL: configuration.publicURL).register(on: router)
        let authenticated = router.group().add(middleware: authentication)
        metricsRoutes(services).register(on: authenticated.group().add(middleware: MasterOnlyMiddleware(refusal: .unauthorized)))
        let routes = APIRoutes(configuration: configuration, services: services, limiter: limiter)
        let (endpoint, fileRoutes, accounts, verification) = (routes.endpoint, routes.fileRoutes, services.accounts, services.verification)
        DialectRoutes(
            endpoint: endpoint, accounts: accounts, files: services.files,
            ownersMayDeleteFiles: configuration.ownersMayDeleteFiles
        ).register(on: authenticated)
        // The API's routes are built once and mounted under both versions: a route that needs
        // the version its path named reads it from the request (`RequestOrigin`).
        let api = RouteCollection(context: HostRequestContext.self)
        // Open: the clock, and what carries its own credential (an email's token, a captcha's,
        // an upload's; the platform's hook key).
        let open = api.group()
        EngineRoutes().registerClock(on: open)
        VerificationPages(verification: verification).register(on: open)
        routes.captchas.registerImage(on: open)
        fileRoutes.registerUploads(on: open)
        HookRoutes(data: data, hookKey: configuration.keys.hookKey)
            .register(on: api.group().add(middleware: HookCallMiddleware(authentication: authentication)))
        routes.register(on: api.group().add(middleware: authentication))
        for version in Self.apiVersions { router.addRoutes(api, atPath: RouterPath(version)) }
        // Never beside the app's own pages on one origin (`ConsoleCommandOptions` refuses it).
        if configuration.console.placement == .main, configuration.engineWeb.prefixes.isEmpty {
            registerConsole(on: router, routes: routes)
        }
        return router
    }

    /// The console (`ConsoleRoutes`) on `router`, with the API's `routes` mounted again under
    /// `/console/api/1.1` behind its session, as the master key: one route code for both doors.
    static func registerConsole(on router: Router<HostRequestContext>, routes: APIRoutes) {
        let configuration = routes.configuration
        let sessions = ConsoleSessions(
            data: routes.services.data, options: configuration.console, masterKey: configuration.keys.masterKey, now: configuration.clock)
        let consoleRoutes = ConsoleRoutes(sessions: sessions, masterKey: configuration.keys.masterKey, proxies: configuration.trustedProxies)
        consoleRoutes.register(on: router)
        let console = RouteCollection(context: HostRequestContext.self)
        // The session's own routes hand the page its CSRF token; every other asks it of every
        // request, reads too (a GET may run a function).
        consoleRoutes.registerSession(
            on: console.group().add(
                middleware: ConsoleAuthMiddleware(sessions: sessions, proxies: configuration.trustedProxies, csrfOnReads: false)))
        let group = console.group().add(middleware: ConsoleAuthMiddleware(sessions: sessions, proxies: configuration.trustedProxies))
        // The console's own: a function tried as a user (the host acting for that user, no token
        // made), and the metrics its table and charts (each minute of the last hour) are drawn from.
        ConsoleInvokeRoute(invoker: routes.services.invoker, limiter: routes.limiter).register(on: group)
        metricsRoutes(routes.services).register(on: group)
        let history = routes.services.metrics.history
        group.get("metrics/history") { _, _ in ConsoleRoutes.answer(history.json) }
        routes.register(on: group.group("1.1"))
        router.addRoutes(console, atPath: "console/api")
    }
}
