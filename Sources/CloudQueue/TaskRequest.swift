public import DataAPI
public import JSON

/// Whether a task whose run can't be known to have happened is run again.
public enum DeliveryMode: String, Sendable, Hashable, CaseIterable {
    /// LeanEngine's default: a task that timed out, or whose host died mid-run, runs again (so
    /// it may run more than once).
    case atLeastOnce
    /// Such a task is failed instead (so it may not have run at all). A function that answers
    /// with an error is retried in both modes, as LeanEngine does: only the unknown is not.
    case atMostOnce
}

/// Who put a task in the queue.
public enum TaskOrigin: Sendable, Hashable {
    /// The REST API (`POST /1.1/engine/cloud-queue/tasks`) or the command line.
    case api
    /// Cloud code (`AV.Cloud.enqueue`, Swift's queue handle).
    case code
    /// A timer's firing, by the timer's name.
    case timer(String)

    /// Whether a timer's firing made the task.
    public var isTimer: Bool {
        if case .timer = self { return true }
        return false
    }

    /// The origin as stored: `api`, `code` or `timer:<name>`.
    public var stored: String {
        switch self {
        case .api: "api"
        case .code: "code"
        case .timer(let name): "timer:" + name
        }
    }

    /// The origin a stored string names; unknown text reads as `.api`.
    public init(stored: String) {
        if stored == "code" {
            self = .code
        } else if stored.hasPrefix("timer:") {
            self = .timer(String(stored.dropFirst(6)))
        } else {
            self = .api
        }
    }
}

/// A task to enqueue: a cloud function, its params, and how to run it. What the REST body,
/// `AV.Cloud.enqueue` and Swift code ask for, checked by `validated(by:)` before it is stored.
public struct TaskRequest: Sendable, Hashable {
    /// The cloud function the task calls.
    public var function: String
    /// The params it is called with: a JSON object.
    public var params: JSONValue
    /// The environment whose code runs it (REST: `prod` 0 is staging).
    public var environment: EnvironmentName
    /// The user it runs as (fetched when it runs); nil runs it as the master.
    public var userId: String?
    /// How many times it may run when it fails (LeanEngine's `attempts`, default 1: no retry).
    public var attempts: Int
    /// The time between a failed run and the next (LeanEngine's `backoff`, a fixed interval).
    public var backoff: Duration
    /// How long before its first run.
    public var delay: Duration
    /// Whether a run that may or may not have happened is repeated.
    public var deliveryMode: DeliveryMode
    /// How long a finished task's record (its status, result) is kept; its uniqueId stays taken
    /// meanwhile.
    public var keepResult: Duration
    /// Lower runs first; nil: the enqueue time in milliseconds (first come, first served).
    public var priority: Int64?
    /// Its time limit; nil: the queue's default.
    public var timeout: Duration?
    /// Its id, unique while its record is kept; nil: a random one.
    public var uniqueId: String?
    /// Who enqueued it.
    public var origin: TaskOrigin

    /// A request with LeanEngine's defaults.
    public init(
        function: String, params: JSONValue = [:], environment: EnvironmentName = .production, userId: String? = nil,
        attempts: Int = 1, backoff: Duration = .milliseconds(60_000), delay: Duration = .zero,
        deliveryMode: DeliveryMode = .atLeastOnce, keepResult: Duration = .milliseconds(300_000), priority: Int64? = nil,
        timeout: Duration? = nil, uniqueId: String? = nil, origin: TaskOrigin = .api
    ) {
        self.function = function
        self.params = params
        self.environment = environment
        self.userId = userId
        self.attempts = attempts
        self.backoff = backoff
        self.delay = delay
        self.deliveryMode = deliveryMode
        self.keepResult = keepResult
        self.priority = priority
        self.timeout = timeout
        self.uniqueId = uniqueId
        self.origin = origin
    }

    // MARK: Bounds

    /// The most runs a task may ask for.
    public static let maxAttempts = 10
    /// The longest back-off between runs.
    public static let maxBackoff: Duration = .seconds(24 * 3600)
    /// The longest delay before a first run.
    public static let maxDelay: Duration = .seconds(30 * 24 * 3600)
    /// The longest a finished task is kept.
    public static let maxKeepResult: Duration = .seconds(30 * 24 * 3600)
    /// The largest priority either way: what a JavaScript number holds exactly.
    public static let maxPriority: Int64 = 9_007_199_254_740_991
    /// How every timer firing's uniqueId starts; no other task's may.
    public static let timerPrefix = "timer-"

    /// The longest uniqueId a caller may give (LeanEngine's limit).
    public static let maxUniqueIdLength = 32
    /// The longest uniqueId a timer's firing uses (its name and time are in it).
    public static let maxTimerUniqueIdLength = 128
    /// The longest function name.
    public static let maxFunctionLength = 128

    /// Refuses a name no cloud function can have.
    static func checkFunctionName(_ function: String) throws(CloudQueueError) {
        guard (1...Self.maxFunctionLength).contains(function.utf8.count),
            function.unicodeScalars.allSatisfy({ Self.isNameCharacter($0) || $0 == "." })
        else {
            throw .badRequest("function must be a cloud function's name: 1 to \(Self.maxFunctionLength) letters, digits, '_', '-' or '.'.")
        }
    }

    /// The request with every bound checked.
    ///
    /// - Throws: `badRequest` naming the first field out of bounds.
    public func validated(by settings: QueueSettings) throws(CloudQueueError) -> TaskRequest {
        try Self.checkFunctionName(function)
        guard case .object = params else { throw .badRequest("params must be a JSON object.") }
        let paramsBytes = params.jsonBytes.count
        guard paramsBytes <= settings.maxParamsBytes else {
            throw .badRequest("params is \(paramsBytes) bytes of JSON; the limit is \(settings.maxParamsBytes).")
        }
        if let userId {
            guard (1...64).contains(userId.utf8.count), userId.unicodeScalars.allSatisfy(Self.isNameCharacter) else {
                throw .badRequest("user must be a user's objectId.")
            }
        }
        guard (1...Self.maxAttempts).contains(attempts) else {
            throw .badRequest("attempts must be 1 to \(Self.maxAttempts).")
        }
        try Self.check(backoff, "backoff", max: Self.maxBackoff)
        try Self.check(delay, "delay", max: Self.maxDelay)
        try Self.check(keepResult, "keepResult", max: Self.maxKeepResult)
        if let timeout {
            guard timeout >= .seconds(1), timeout <= settings.maxTimeout else {
                throw .badRequest("timeout must be 1000 to \(settings.maxTimeout.milliseconds) milliseconds.")
            }
        }
        if let priority, !(-Self.maxPriority...Self.maxPriority).contains(priority),
            !(origin.isTimer && priority == TimerDefinition.firingPriority)
        {
            throw .badRequest("priority must be an integer between -\(Self.maxPriority) and \(Self.maxPriority).")
        }
        if let uniqueId {
            let limit: Int
            if case .timer = origin { limit = Self.maxTimerUniqueIdLength } else { limit = Self.maxUniqueIdLength }
            guard (1...limit).contains(uniqueId.utf8.count), uniqueId.unicodeScalars.allSatisfy(Self.isNameCharacter) else {
                throw .badRequest("uniqueId must be 1 to \(limit) letters, digits, '_' or '-'.")
            }
            // A timer's firing is found by its id (`timer-<name>-<time>`) on every host: an id
            // of that form taken first by anyone else would stand in for the firing, which
            // would then never run.
            if uniqueId.hasPrefix(Self.timerPrefix) {
                guard case .timer = origin else {
                    throw .badRequest("uniqueId may not start with '\(Self.timerPrefix)': timers' firings are named so.")
                }
            }
        }
        return self
    }

    private static func check(_ duration: Duration, _ name: String, max: Duration) throws(CloudQueueError) {
        guard duration >= .zero, duration <= max else {
            throw .badRequest("\(name) must be 0 to \(max.milliseconds) milliseconds.")
        }
    }

    /// ASCII letters, digits, `_` and `-`: what ids and names may hold (they go in URL paths).
    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
