public import DataAPI
public import Foundation
public import JSON
public import Logging

/// LeanCloud's leaderboards over the data service: boards (`_Leaderboard`), their members'
/// statistics (`_LeaderboardStatistic`, one record per board life, version and member) and the
/// versions they ended (`_LeaderboardArchive`).
///
/// Who may do what is decided here, from the caller the host authenticated: managing boards,
/// archives and objects' or entities' statistics needs the master key; a signed-in user writes
/// and deletes his own statistics unless `masterKeyOnlyStatistics`; anyone with the app's key
/// reads boards, statistics and rankings (users' fields are read as the caller, through the
/// data service's authorization). A version ends when a reset asks or when its time comes: the
/// first call that finds it due starts the next one, so no timer is needed and the clock is
/// the injected one.
public struct Leaderboards: Sendable {
    /// The service every record and every ranked user is read through.
    let data: DataService
    /// Where storage failures are logged.
    let logger: Logger
    /// The time versions end by; tests pass a clock they move by hand.
    let now: @Sendable () -> Date
    /// When versions end.
    let calendar: ResetCalendar
    /// Whether only the master key writes statistics (LeanCloud's dashboard switch "only the
    /// master key may update scores"); off, a user writes his own.
    let masterKeyOnlyStatistics: Bool

    /// The most archives a board keeps (LeanCloud keeps 60): older ones are dropped.
    static let maxArchives = 60

    /// Creates the leaderboards of a data service.
    public init(
        data: DataService, logger: Logger, now: @escaping @Sendable () -> Date = { Date() },
        calendar: ResetCalendar = ResetCalendar(timeZone: TimeZone(identifier: "UTC")!), masterKeyOnlyStatistics: Bool = false
    ) {
        self.data = data
        self.logger = logger
        self.now = now
        self.calendar = calendar
        self.masterKeyOnlyStatistics = masterKeyOnlyStatistics
    }

    /// The records of the caller's environment.
    func store(_ caller: Caller) -> RecordStore {
        RecordStore(data: data, logger: logger, environment: caller.environment)
    }

    /// An objectId from parts: a letter and 24 hex digits of their SHA-256, so one name (or one
    /// member's statistic) has one record and the database's unique ids refuse a second.
    static func recordId(_ prefix: String, _ parts: String...) -> String {
        DerivedObjectId.make(prefix, from: parts.joined(separator: "\u{0}"))
    }

    static func boardId(_ name: String) -> String { recordId("b", name) }

    /// Refuses a caller without the master key.
    static func requireMaster(_ caller: Caller) throws(LeaderboardError) {
        guard caller.isMaster else { throw .masterKeyRequired }
    }

    // MARK: Boards

    /// Creates a board (master key): `statisticName`, and optionally `memberType` (`_User` by
    /// default, as the SDKs that send none expect), `order`, `updateStrategy`,
    /// `versionChangeInterval` (LeanCloud's defaults: descending, better, week).
    public func create(_ body: [String: JSONValue], caller: Caller) async throws(LeaderboardError) -> Leaderboard {
        try Self.requireMaster(caller)
        guard let name = body["statisticName"]?.stringValue else { throw .badRequest("statisticName is required.") }
        try LeaderboardInput.checkName(name)
        let memberType = try Self.memberType(body["memberType"])
        let order = try Self.setting(body["order"], LeaderboardOrder.self, "order") ?? .descending
        let strategy = try Self.setting(body["updateStrategy"], UpdateStrategy.self, "updateStrategy") ?? .better
        let interval = try Self.setting(body["versionChangeInterval"], VersionChangeInterval.self, "versionChangeInterval") ?? .week
        let start = now()
        let board = Leaderboard(
            statisticName: name, memberType: memberType, order: order, updateStrategy: strategy, versionChangeInterval: interval,
            version: 0, activatedAt: start, expiredAt: calendar.nextReset(after: start, interval: interval),
            generation: UUID().uuidString.lowercased())
        guard let stored = try await store(caller).create(RecordStore.boards, board.storedFields, objectId: Self.boardId(name)),
            let created = Leaderboard(stored: stored)
        else {
            throw LeaderboardError(.duplicate, code: 137, "A leaderboard named '\(name)' exists already.")
        }
        return created
    }

    /// A board as it is now (its version moved on if its time came), for anyone with the app key.
    public func board(_ name: String, caller: Caller) async throws(LeaderboardError) -> Leaderboard {
        try LeaderboardInput.checkName(name)
        return try await current(name, store(caller))
    }

    /// Changes a board's `updateStrategy` and/or `versionChangeInterval` (master key; the rest
    /// is fixed at creation, as on LeanCloud). A new interval takes effect from now: the
    /// current version ends at its next boundary.
    public func update(_ name: String, _ body: [String: JSONValue], caller: Caller) async throws(LeaderboardError) -> Leaderboard {
        try Self.requireMaster(caller)
        try LeaderboardInput.checkName(name)
        let fixed = body.keys.filter { !["updateStrategy", "versionChangeInterval"].contains($0) }
        guard fixed.isEmpty else {
            throw .badRequest("Only updateStrategy and versionChangeInterval may change; not \(fixed.sorted().first!.prefix(64)).")
        }
        let strategy = try Self.setting(body["updateStrategy"], UpdateStrategy.self, "updateStrategy")
        let interval = try Self.setting(body["versionChangeInterval"], VersionChangeInterval.self, "versionChangeInterval")
        let store = store(caller)
        // Retried when a reset or another change lands between the read and the write.
        for _ in 0..<8 {
            let board = try await current(name, store)
            var changed = board
            if let strategy { changed.updateStrategy = strategy }
            if let interval, interval != board.versionChangeInterval {
                changed.versionChangeInterval = interval
                changed.expiredAt = calendar.nextReset(after: now(), interval: interval)
            }
            if let written = try await store.update(
                RecordStore.boards, id: board.objectId, changed.storedFields, if: Self.sameVersion(board)),
                let updated = Leaderboard(stored: written)
            {
                return updated
            }
        }
        throw .storageFailed
    }

    /// Ends the current version now, whatever the interval (master key): it is archived, the
    /// version before it dropped, and the board starts empty.
    public func reset(_ name: String, caller: Caller) async throws(LeaderboardError) -> Leaderboard {
        try Self.requireMaster(caller)
        try LeaderboardInput.checkName(name)
        let store = store(caller)
        for _ in 0..<8 {
            let board = try await current(name, store)
            if let next = try await advance(board, activatedAt: now(), store) { return next }
        }
        throw .storageFailed
    }

    /// Deletes a board with its statistics and archives (master key).
    public func delete(_ name: String, caller: Caller) async throws(LeaderboardError) {
        try Self.requireMaster(caller)
        try LeaderboardInput.checkName(name)
        let store = store(caller)
        guard let board = try await load(name, store) else { throw .boardNotFound(name) }
        // The board first: a statistic written meanwhile names a generation no board has.
        try await store.delete(RecordStore.boards, id: board.objectId)
        try await store.deleteAll(RecordStore.statistics, ["generation": .string(board.generation)])
        try await store.deleteAll(RecordStore.archives, ["generation": .string(board.generation)])
    }

    /// The versions a board ended, newest first (master key).
    public func archives(_ name: String, skip: Int, limit: Int, caller: Caller) async throws(LeaderboardError) -> [JSONValue] {
        try Self.requireMaster(caller)
        try LeaderboardInput.checkName(name)
        let store = store(caller)
        let board = try await current(name, store)
        let records = try await store.find(
            RecordStore.archives, ["generation": .string(board.generation)], order: [SortKey(key: "version", descending: true)],
            skip: skip, limit: limit)
        return records.map(Self.archiveJSON)
    }

    // MARK: Versions

    /// The stored board of a name, as stored.
    func load(_ name: String, _ store: RecordStore) async throws(LeaderboardError) -> Leaderboard? {
        try await store.find(RecordStore.boards, ["objectId": .string(Self.boardId(name))], limit: 1).first
            .flatMap(Leaderboard.init(stored:))
    }

    /// The board of a name with its version moved on if its time came.
    func current(_ name: String, _ store: RecordStore) async throws(LeaderboardError) -> Leaderboard {
        for _ in 0..<8 {
            guard let board = try await load(name, store) else { throw .boardNotFound(name) }
            guard let end = board.expiredAt, now() >= end else { return board }
            // The version started when its predecessor's time came, whoever noticed it first.
            if let next = try await advance(board, activatedAt: end, store) { return next }
        }
        throw .storageFailed
    }

    /// A condition matching the board as it was read: the same life and version.
    static func sameVersion(_ board: Leaderboard) -> JSONValue {
        ["generation": .string(board.generation), "version": .int(Int64(board.version))]
    }

    /// Starts the board's next version, if no one else did since it was read (nil then: read it
    /// again). The ended version is archived; the one before it, kept until now for reads of
    /// the last version, is dropped.
    private func advance(_ board: Leaderboard, activatedAt: Date, _ store: RecordStore) async throws(LeaderboardError) -> Leaderboard? {
        let ended = now()
        var next = board
        next.version += 1
        next.activatedAt = activatedAt
        next.expiredAt = calendar.nextReset(after: ended, interval: board.versionChangeInterval)
        guard let written = try await store.update(RecordStore.boards, id: board.objectId, next.storedFields, if: Self.sameVersion(board)),
            let advanced = Leaderboard(stored: written)
        else { return nil }
        let archive: [String: JSONValue] = [
            "statisticName": .string(board.statisticName), "generation": .string(board.generation),
            "version": .int(Int64(board.version)), "status": "completed",
            "activatedAtMs": .int(board.activatedAt.leaderboardMilliseconds), "deactivatedAtMs": .int(ended.leaderboardMilliseconds),
        ]
        _ = try await store.create(
            RecordStore.archives, archive, objectId: Self.recordId("a", board.generation, String(board.version)))
        try await store.deleteAll(
            RecordStore.statistics, ["generation": .string(board.generation), "version": ["$lt": .int(Int64(board.version))]])
        try await store.deleteAll(
            RecordStore.archives,
            ["generation": .string(board.generation), "version": ["$lte": .int(Int64(board.version - Self.maxArchives))]])
        return advanced
    }

    /// An archive as LeanCloud lists it (no `url`: no CSV file is written here).
    static func archiveJSON(_ object: StoredObject) -> JSONValue {
        let fields = object.fields
        func date(_ key: String) -> JSONValue {
            fields[key]?.intValue.map { Date(leaderboardMilliseconds: $0).leaderboardJSON } ?? .null
        }
        return [
            "objectId": .string(object.objectId), "statisticName": fields["statisticName"] ?? .null,
            "version": fields["version"] ?? .null, "status": fields["status"] ?? .null,
            "activatedAt": date("activatedAtMs"), "deactivatedAt": date("deactivatedAtMs"),
            "createdAt": .string(object.createdAt), "updatedAt": .string(object.updatedAt),
        ]
    }

    // MARK: Input

    /// A setting's value, nil when absent (`null` is absent, as the SDKs send unset options).
    static func setting<Value: RawRepresentable & CaseIterable>(
        _ json: JSONValue?, _: Value.Type, _ name: String
    ) throws(LeaderboardError) -> Value? where Value.RawValue == String {
        guard let json, json != .null else { return nil }
        guard let text = json.stringValue, let value = Value(rawValue: text) else {
            throw .badRequest("\(name) must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return value
    }

    /// `memberType`: `_User` (the default), `_Entity` or a class name.
    static func memberType(_ json: JSONValue?) throws(LeaderboardError) -> String {
        guard let json, json != .null else { return "_User" }
        guard let text = json.stringValue, text == "_User" || text == "_Entity" || isObjectClass(text) else {
            throw .badRequest("memberType must be _User, _Entity or the name of a class of the app's own.")
        }
        return text
    }

    /// A class whose objects a board may rank: the app's own (no system class but `_User`).
    static func isObjectClass(_ name: String) -> Bool {
        Names.isValidClassName(name) && !name.hasPrefix("_")
    }
}
