/// The order of a leaderboard's results (`order`; fixed when it is created).
public enum LeaderboardOrder: String, Sendable, Hashable, CaseIterable {
    /// The lowest value ranks first (a race's time).
    case ascending
    /// The highest value ranks first (a score): LeanCloud's default.
    case descending
}

/// How a new value meets the kept one (`updateStrategy`).
public enum UpdateStrategy: String, Sendable, Hashable, CaseIterable {
    /// Keep the better of the two, by the board's order: LeanCloud's default.
    case better
    /// Keep the new one.
    case last
    /// Keep their sum.
    case sum
}

/// When a leaderboard starts a new version by itself (`versionChangeInterval`): at 00:00 of each
/// day, of each Monday, of each month's first day, or never.
public enum VersionChangeInterval: String, Sendable, Hashable, CaseIterable {
    /// Every day at 00:00.
    case day
    /// Every Monday at 00:00: LeanCloud's default.
    case week
    /// The first of every month at 00:00.
    case month
    /// Only by a reset.
    case never
}

/// What a leaderboard ranks (`memberType`): users, the objects of one class, or free strings.
public enum MemberKind: String, Sendable, Hashable, CaseIterable {
    /// `_User`: members are users' objectIds.
    case user
    /// Any other class: members are its objects' objectIds.
    case object
    /// `_Entity`: members are strings the app chooses.
    case entity

    /// The kind of a `memberType`.
    init(memberType: String) {
        switch memberType {
        case "_User": self = .user
        case "_Entity": self = .entity
        default: self = .object
        }
    }

    /// The key a statistic and a ranking name their member by (`user`, `object`, `entity`).
    public var key: String { rawValue }

    /// The kind a path segment names (`users`/`user`, `objects`/`object`, `entities`/`entity`).
    public init?(pathSegment: String) {
        switch pathSegment {
        case "users", "user": self = .user
        case "objects", "object": self = .object
        case "entities", "entity": self = .entity
        default: return nil
        }
    }
}
