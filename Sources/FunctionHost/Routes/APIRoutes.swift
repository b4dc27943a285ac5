import CloudQueue
import DataAPI
import Hummingbird
import Leaderboards

/// The API's routes that take the app's keys (or stand behind the master key), registered on a
/// group whose middleware decides the caller: `AuthMiddleware` under `/1.1` and `/1`, the
/// console's session under `/console/api/1.1`. One registration, so both doors reach the same
/// route code.
struct APIRoutes {
    let configuration: HostConfiguration
    let services: FunctionHostServer.Services
    let limiter: RateLimiter
    /// Objects, as every route that writes one reaches them.
    let endpoint: ObjectEndpoint
    /// Files and their upload tokens.
    let fileRoutes: FileRoutes
    /// Captchas (their images are open, the rest behind keys).
    let captchas: CaptchaRoutes

    /// The routes of a host's configuration and services.
    init(configuration: HostConfiguration, services: FunctionHostServer.Services, limiter: RateLimiter) {
        self.configuration = configuration
        self.services = services
        self.limiter = limiter
        var tokens = FileUploadTokens(files: services.files)
        // Upload tokens expire by the host's clock, as lockouts and codes do.
        tokens.now = configuration.clock
        fileRoutes = FileRoutes(
            files: services.files, tokens: tokens,
            ownersMayDelete: configuration.ownersMayDeleteFiles, publicURL: configuration.publicURL,
            fileDomain: configuration.fileDomain)
        var endpoint = ObjectEndpoint(
            data: services.data, accounts: services.accounts, verification: services.verification, publicURL: configuration.publicURL,
            logger: services.logger)
        endpoint.files = services.files
        endpoint.gate = services.gate
        endpoint.ownersMayDeleteFiles = configuration.ownersMayDeleteFiles
        self.endpoint = endpoint
        captchas = CaptchaRoutes(captchas: services.gate.captchas, publicURL: configuration.publicURL)
    }

    /// Registers every route on `group`, whose middleware has set the caller.
    func register(on group: RouterGroup<HostRequestContext>) {
        let data = services.data
        let (accounts, verification) = (services.accounts, services.verification)
        ObjectRoutes(endpoint: endpoint).register(on: group)
        var statuses = Statuses(data: data)
        statuses.openInboxes = configuration.openStatusInboxes
        BatchRoutes(endpoint: endpoint, limiter: limiter, maxTime: configuration.batchTime, statuses: statuses).register(on: group)
        BatchSaveRoutes(endpoint: endpoint, limiter: limiter).register(on: group)
        UserRoutes(endpoint: endpoint, accounts: accounts).register(on: group)
        FriendshipRoutes(friendships: Friendships(data: data)).register(on: group)
        StatusRoutes(statuses: statuses).register(on: group)
        VerificationRoutes(
            verification: verification, accounts: accounts, gate: services.gate, publicURL: configuration.publicURL
        ).register(on: group)
        captchas.register(on: group)
        ClassAliasRoutes(endpoint: endpoint, path: "roles", className: "_Role").register(on: group)
        ScanRoutes(data: data).register(on: group)
        SchemaRoutes(data: data).register(on: group)
        SearchRoutes(data: data, publicURL: configuration.publicURL, appId: configuration.keys.appId).register(on: group)
        CloudQueryRoutes(data: data).register(on: group)
        LiveQueryRoutes(hub: services.liveQuery, data: data).register(on: group)
        FunctionRoutes(invoker: services.invoker, limiter: limiter)
            .register(on: group, masterOnly: group.group().add(middleware: MasterOnlyMiddleware(refusal: .unauthorized)))
        DeployRoutes(deployer: services.deployer).register(on: group)
        EngineAppRoutes(environments: services.deployer.environments)
            .register(on: group.group().add(middleware: MasterOnlyMiddleware(refusal: .unauthorized)))
        QueueRoutes(queue: services.queue)
            .register(on: group, masterOnly: group.group().add(middleware: MasterOnlyMiddleware(refusal: QueueRoutes.refusal)))
        TimerRoutes(timers: services.timers, defaultTimeZone: configuration.queue.timersTimeZone)
            .register(on: group.group().add(middleware: MasterOnlyMiddleware(refusal: TimerRoutes.refusal)))
        LeaderboardRoutes(
            leaderboards: Leaderboards(
                data: data, logger: services.logger, now: configuration.clock,
                calendar: ResetCalendar(timeZone: configuration.leaderboards.timeZone),
                masterKeyOnlyStatistics: configuration.leaderboards.masterKeyOnlyStatistics)
        ).register(on: group)
        LogRoutes(logs: services.functionLogs)
            .register(on: group.group().add(middleware: MasterOnlyMiddleware(refusal: LogRoutes.refusal)))
        fileRoutes.register(on: group)
    }
}
