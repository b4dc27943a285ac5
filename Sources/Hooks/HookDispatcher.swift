import CallSupport
public import DataAPI
import JSON
public import Logging

/// Runs the registered hooks around the data service's operations: the `WriteHooks` that
/// `DataService` calls on every path.
///
/// - Before-hooks run with a deadline (10 s by default); their changes are what is written; a
///   throw rejects the operation with the hook's code, or 142.
/// - After-hooks run once the write committed, with their own deadline (3 s). The response
///   waits for them — so a client that saves and then reads sees what they did — but their
///   failure is only logged, with the hook and object id, and never fails or undoes the write.
/// - Each hook's own writes run one level deeper; past `maxDepth` a write is refused, so hooks
///   that write each other's classes stop with a clear error instead of looping.
public final class HookDispatcher: WriteHooks {
    /// Deadlines and depth.
    public struct Limits: Sendable {
        /// How long a before-hook may run.
        public var beforeTimeout: Duration
        /// How long an after-hook may run.
        public var afterTimeout: Duration
        /// How deep hooks may nest through their own writes.
        public var maxDepth: Int

        /// Creates limits; the defaults are LeanEngine's timeouts.
        public init(beforeTimeout: Duration = .seconds(10), afterTimeout: Duration = .seconds(3), maxDepth: Int = 8) {
            self.beforeTimeout = beforeTimeout
            self.afterTimeout = afterTimeout
            self.maxDepth = maxDepth
        }
    }

    /// An after-hook that failed: reported to the log and to `onAfterFailure`.
    public struct Failure: Sendable {
        /// The hook's kind.
        public var kind: HookKind
        /// The class.
        public var className: String
        /// The object's id.
        public var objectId: String?
        /// What went wrong.
        public var message: String
    }

    /// One run of a hook, as metrics count it.
    public struct Invocation: Sendable {
        /// The hook's kind.
        public var kind: HookKind
        /// The class.
        public var className: String
        /// The environment whose hook ran.
        public var environment: EnvironmentName
        /// How long it took.
        public var duration: Duration
        /// Whether it threw, or ran out of time.
        public var failed: Bool
    }

    /// Where each environment's hooks are read, at each operation: one place holds what an
    /// environment runs (the host's deploys), so a deploy swaps functions and hooks together.
    private let source: any HookSource
    private let service: DataService
    private let limits: Limits
    private let logger: Logger
    private let onAfterFailure: (@Sendable (Failure) -> Void)?
    private let onInvocation: (@Sendable (Invocation) -> Void)?
    /// Ends Swift hooks that run past their deadline.
    private let deadlines = DeadlineWatch()

    /// Creates a dispatcher over `service` (whose own `hooks` it will be) running the hooks
    /// `source` gives for each operation's environment (a `HookRegistry` gives the same hooks in
    /// every environment).
    public init(
        service: DataService, hooks source: any HookSource, limits: Limits = Limits(), logger: Logger,
        onAfterFailure: (@Sendable (Failure) -> Void)? = nil, onInvocation: (@Sendable (Invocation) -> Void)? = nil
    ) {
        var service = service
        service.hooks = nil
        self.service = service
        self.source = source
        self.limits = limits
        self.logger = logger
        self.onAfterFailure = onAfterFailure
        self.onInvocation = onInvocation
    }

    /// The service with this dispatcher's hooks: what every route and data API should use.
    public var hookedService: DataService {
        var service = service
        service.hooks = self
        return service
    }

    /// The hooks an environment runs now, read from the source once (one lock, for a host's
    /// deploys): what one operation asks and runs from its start to its end.
    package func snapshot(in environment: EnvironmentName) -> any HookSnapshot {
        Snapshot(registry: source.hooks(in: environment), dispatcher: self)
    }

    /// One environment's hooks as an operation found them, run through this dispatcher.
    struct Snapshot: HookSnapshot {
        let registry: HookRegistry
        let dispatcher: HookDispatcher

        func contains(_ kind: HookKind, _ className: String) -> Bool {
            registry.contains(kind, className) || registry.holds(kind)
        }

        func runBefore(_ kind: HookKind, _ event: ObjectEvent) async throws -> ObjectEvent {
            let entry = registry.entry(kind, event.className)
            if entry == nil, registry.holds(kind), let reason = registry.heldWrites {
                var error = HookError.rejected(reason, crashed: true)
                error.requestedStatus = 503
                error.hook = kind
                throw error
            }
            return try await dispatcher.runHook(entry, kind, event, timeout: dispatcher.limits.beforeTimeout)
        }

        func runAfterAnswering(_ kind: HookKind, _ event: ObjectEvent) async throws {
            _ = try await dispatcher.runHook(registry.entry(kind, event.className), kind, event, timeout: dispatcher.limits.afterTimeout)
        }

        func runAfter(_ kind: HookKind, _ event: ObjectEvent) async {
            await dispatcher.runAfter(registry.entry(kind, event.className), kind, event)
        }
    }

    /// Runs the snapshot's hook of this kind, if any: the event as it left it.
    private func runHook(
        _ entry: HookRegistry.Entry?, _ kind: HookKind, _ event: ObjectEvent, timeout: Duration
    ) async throws -> ObjectEvent {
        guard let entry else { return event }
        do {
            return try await run(entry, try request(kind, event, timeout: timeout), kind: kind).event
        } catch var error as HookError {
            // Which hook stopped it decides how the host answers (a refused login is unauthorized).
            error.hook = kind
            throw error
        }
    }

    /// Runs an after-hook, logging (never throwing) its failure: the write stands.
    private func runAfter(_ entry: HookRegistry.Entry?, _ kind: HookKind, _ event: ObjectEvent) async {
        do {
            _ = try await runHook(entry, kind, event, timeout: limits.afterTimeout)
        } catch {
            let failure = Failure(
                kind: kind, className: event.className, objectId: event.object["objectId"]?.stringValue,
                message: (error as? HookError)?.message ?? String(describing: error))
            logger.error(
                "\(kind.rawValue) hook of \(event.className) failed; the write stands.",
                metadata: [
                    "hook": .string(kind.rawValue), "class": .string(event.className),
                    "objectId": .string(failure.objectId ?? "-"), "error": .string(failure.message),
                ])
            onAfterFailure?(failure)
        }
    }

    private func request(_ kind: HookKind, _ event: ObjectEvent, timeout: Duration) throws(HookError) -> HookRequest {
        let depth = event.caller.hookDepth + 1
        guard depth <= limits.maxDepth else {
            throw HookError(
                code: 142,
                message: "Hooks nested more than \(limits.maxDepth) deep: the \(kind.rawValue) hook of \(event.className) was not run. Do hooks write each other's classes?")
        }
        let tags: Logger.Metadata = [
            "hook": .string(kind.rawValue), "class": .string(event.className),
            "environment": .string(event.caller.environment.rawValue),
        ]
        // The hook's data API acts as the request's caller, one level deeper (`Caller.nested`).
        return HookRequest(
            kind: kind, event: event, deadline: .now + timeout, taggedLogger: TaggedLogger(logger, tags: tags),
            data: DataClient(service: hookedService, caller: event.caller.nested))
    }

    /// Runs a hook, reporting how it went to `onInvocation`.
    private func run(_ entry: HookRegistry.Entry, _ request: HookRequest, kind: HookKind) async throws
        -> HookRequest
    {
        guard let onInvocation else { return try await runAgainstDeadline(entry, request, kind: kind) }
        let start = ContinuousClock.now
        var failed = true
        defer {
            onInvocation(
                Invocation(
                    kind: kind, className: request.className, environment: request.environment,
                    duration: start.duration(to: .now), failed: failed))
        }
        let done = try await runAgainstDeadline(entry, request, kind: kind)
        failed = false
        return done
    }

    /// Runs a hook against its deadline; a throw that isn't a `HookError` becomes 142.
    private func runAgainstDeadline(_ entry: HookRegistry.Entry, _ request: HookRequest, kind: HookKind) async throws
        -> HookRequest
    {
        do {
            guard !entry.keepsDeadline else {
                var request = request
                try await entry.handler(&request)
                return request
            }
            let finished = try await deadlines.run(until: request.deadline) {
                var request = request
                try await entry.handler(&request)
                return request
            }
            guard let finished else { throw HookError.timedOut(kind, request.className) }
            return finished
        } catch let error as HookError {
            throw error
        } catch let error as DataAPIError {
            // A write the hook made failed: the client learns why.
            throw HookError.rejected(error.message)
        } catch {
            throw HookError.rejected(String(describing: error), crashed: true)
        }
    }
}
