import DataAPI
public import Foundation
public import JSON

/// One leaderboard as its `_Leaderboard` object keeps it.
///
/// `generation` is a random id the board gets when it is created: its statistics and archives
/// carry it, so a board deleted and created again under the same name never shows a statistic
/// written to the old one (by a write racing the delete).
public struct Leaderboard: Sendable, Hashable {
    /// The board's unique name (`statisticName`).
    public var statisticName: String
    /// `_User`, `_Entity` or the class whose objects are ranked.
    public var memberType: String
    /// Which values rank first.
    public var order: LeaderboardOrder
    /// How a new value meets the kept one.
    public var updateStrategy: UpdateStrategy
    /// When the board starts a new version by itself.
    public var versionChangeInterval: VersionChangeInterval
    /// The current version: 0, then one more at each reset.
    public var version: Int
    /// When the current version started.
    public var activatedAt: Date
    /// When the current version ends by itself (`expiredAt`); nil for `never`.
    public var expiredAt: Date?
    /// The id of this board's life (see above).
    public var generation: String
    /// The stored object's id and times (empty until stored).
    public var objectId = "", createdAt = "", updatedAt = ""

    /// The kind of its members.
    public var memberKind: MemberKind { MemberKind(memberType: memberType) }

    /// Whether `value` ranks strictly before `other` on this board.
    func ranksBefore(_ value: Double, _ other: Double) -> Bool {
        order == .descending ? value > other : value < other
    }

    /// The fields the `_Leaderboard` object stores (every one, so an update replaces them all).
    /// Times are milliseconds, so the database compares them as numbers.
    var storedFields: [String: JSONValue] {
        [
            "statisticName": .string(statisticName), "memberType": .string(memberType), "order": .string(order.rawValue),
            "updateStrategy": .string(updateStrategy.rawValue), "versionChangeInterval": .string(versionChangeInterval.rawValue),
            "version": .int(Int64(version)), "activatedAtMs": .int(activatedAt.leaderboardMilliseconds),
            "expiredAtMs": expiredAt.map { .int($0.leaderboardMilliseconds) } ?? .null, "generation": .string(generation),
        ]
    }

    /// The board a stored object holds; nil when it isn't one.
    init?(stored object: StoredObject) {
        let fields = object.fields
        guard let name = fields["statisticName"]?.stringValue, let memberType = fields["memberType"]?.stringValue,
            let order = fields["order"]?.stringValue.flatMap(LeaderboardOrder.init(rawValue:)),
            let strategy = fields["updateStrategy"]?.stringValue.flatMap(UpdateStrategy.init(rawValue:)),
            let interval = fields["versionChangeInterval"]?.stringValue.flatMap(VersionChangeInterval.init(rawValue:)),
            let version = fields["version"]?.intValue, let activated = fields["activatedAtMs"]?.intValue,
            let generation = fields["generation"]?.stringValue
        else { return nil }
        self.init(
            statisticName: name, memberType: memberType, order: order, updateStrategy: strategy, versionChangeInterval: interval,
            version: Int(version), activatedAt: Date(leaderboardMilliseconds: activated),
            expiredAt: fields["expiredAtMs"]?.intValue.map(Date.init(leaderboardMilliseconds:)), generation: generation)
        objectId = object.objectId
        createdAt = object.createdAt
        updatedAt = object.updatedAt
    }

    /// Creates a board.
    public init(
        statisticName: String, memberType: String, order: LeaderboardOrder, updateStrategy: UpdateStrategy,
        versionChangeInterval: VersionChangeInterval, version: Int, activatedAt: Date, expiredAt: Date?, generation: String
    ) {
        self.statisticName = statisticName
        self.memberType = memberType
        self.order = order
        self.updateStrategy = updateStrategy
        self.versionChangeInterval = versionChangeInterval
        self.version = version
        self.activatedAt = activatedAt
        self.expiredAt = expiredAt
        self.generation = generation
    }

    /// The board as LeanCloud answers it: its settings, `version`, `expiredAt` and
    /// `activatedAt` as Dates, `createdAt` and `updatedAt`.
    public var json: JSONValue {
        var body: [String: JSONValue] = [
            "objectId": .string(objectId), "statisticName": .string(statisticName), "memberType": .string(memberType),
            "order": .string(order.rawValue), "updateStrategy": .string(updateStrategy.rawValue),
            "versionChangeInterval": .string(versionChangeInterval.rawValue), "version": .int(Int64(version)),
            "activatedAt": activatedAt.leaderboardJSON, "expiredAt": expiredAt?.leaderboardJSON ?? .null,
        ]
        if !createdAt.isEmpty { body["createdAt"] = .string(createdAt) }
        if !updatedAt.isEmpty { body["updatedAt"] = .string(updatedAt) }
        return .object(body)
    }
}

extension Date {
    /// Milliseconds since 1970, as the leaderboards' records keep times.
    var leaderboardMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The date of a stored time.
    init(leaderboardMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// A REST Date value (`{"__type": "Date", "iso": ...}`).
    var leaderboardJSON: JSONValue {
        ["__type": "Date", "iso": .string(ISODate.string(fromMilliseconds: leaderboardMilliseconds))]
    }
}
