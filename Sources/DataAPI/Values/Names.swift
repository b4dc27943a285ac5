import JSON

/// The rules for class and field names.
public enum Names {
    /// System classes with a leading underscore that the server defines.
    public static let systemClasses: Set<String> = internalClasses.union([
        "_User", "_Role", "_File", "_Installation", "_Session",
    ]).union(socialClasses)

    /// The follow graph and the statuses users send (`Friendships`, `Statuses`): readable as
    /// their ACLs say, written by those APIs (and the master key) only.
    public static let socialClasses: Set<String> = ["_Follower", "_Followee", "_Status"]

    /// System classes the host keeps for itself (verification codes and the counts of guesses at
    /// them, the message outbox, deploy versions and environments, upload tokens, class
    /// settings, captchas, message send counts, search scrolls, status inboxes and how far each
    /// was read, leaderboards, console sessions): only the master key reads or writes them.
    public static let internalClasses: Set<String> = Set([
        "_VerificationCode", "_GuessCounter", "_Outbox", "_CloudCodeVersion", "_EngineEnvironment", "_EngineBundle", "_FileToken", "_ClassSettings",
        "_Captcha", "_MessageSend", "_SearchScroll", "_CloudTask", "_Timer", "_StatusInbox", "_StatusInboxMark",
    ]).union(leaderboardClasses).union(consoleClasses)

    /// The web console's sessions (each the master key's stand-in while it lives): kept by the
    /// host's console only; no data request reaches them, not even with the master key, so a
    /// session can't be listed, forged or prolonged through the API it unlocks.
    public static let consoleClasses: Set<String> = ["_ConsoleSession"]

    /// The internal classes that hold deploys (versions, engine apps' bundles, what each
    /// environment runs) and the environments' variables, secrets among them: only the host's
    /// deploy store reads or writes them, through the deploy API (`/1.1/engine/...`, which masks secrets). No data path
    /// reaches them, not even with the master key.
    public static let deployClasses: Set<String> = ["_CloudCodeVersion", "_EngineEnvironment", "_EngineBundle"]

    /// The internal classes of the Cloud Queue (tasks with their results and logs, timers): only
    /// the host's queue reads or writes them; the master key manages them through the queue's
    /// own routes (`/1.1/engine/cloud-queue`, `/1.1/engine/timers`), never as data.
    public static let queueClasses: Set<String> = ["_CloudTask", "_Timer"]

    /// The leaderboards' boards, statistics and archives: kept by the host's leaderboard service
    /// (`/1.1/leaderboard/...`), whose writes keep ranks exact; no data request reaches them,
    /// not even with the master key.
    public static let leaderboardClasses: Set<String> = ["_Leaderboard", "_LeaderboardStatistic", "_LeaderboardArchive"]

    /// The internal classes no data request reaches, not even with the master key: deploys,
    /// the queue's, the leaderboards' and the console's sessions.
    public static let hostOnlyClasses: Set<String> = deployClasses.union(queueClasses).union(leaderboardClasses)
        .union(consoleClasses)

    /// Fields that carry transport information in request bodies (browser SDKs tunnel method,
    /// keys and session this way); they are never stored.
    public static let transportKeys: Set<String> = [
        "_method", "_ApplicationId", "_ApplicationKey", "_MasterKey", "_SessionToken", "_ApplicationProduction",
        "_ClientVersion", "_InstallationId", "_NoBody",
    ]

    /// Field names the built-ins own; a client may not write them as data.
    public static let builtInFields: Set<String> = ["objectId", "createdAt", "updatedAt"]

    /// Names LeanCloud reserves: the built-ins (`ACL` is written through its own rules). Any
    /// other name, `id` among them, is an ordinary field, as LeanCloud stores it (the JS SDK's
    /// suite saves a field `id`; the SDKs themselves refuse only these three).
    public static let reservedFields: Set<String> = builtInFields

    /// Whether `name` is a valid class name: letters, digits and `_`, starting with a letter, or
    /// one of the system classes.
    public static func isValidClassName(_ name: String) -> Bool {
        if systemClasses.contains(name) { return true }
        guard let first = name.utf8.first, isLetter(first), name.utf8.count <= 128 else { return false }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// Whether `name` may be written as a field: letters, digits and `_`, no leading `__`,
    /// not reserved. `ACL` is a built-in field that clients do write.
    public static func isValidFieldName(_ name: String) -> Bool {
        if name == "ACL" { return true }
        guard !name.isEmpty, name.utf8.count <= 128, !name.hasPrefix("__"), !reservedFields.contains(name) else {
            return false
        }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// Whether `path` is a field or a dotted path into nested objects (`a.b`), as queries use.
    /// A path has at most `JSONValue.maxNestingDepth` segments: none deeper can name a value,
    /// and the SQL it becomes (a chain of JSON operators) stays within the engines' own limits.
    public static func isValidKeyPath(_ path: String) -> Bool {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.count <= JSONValue.maxNestingDepth && parts.allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
        }
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}
