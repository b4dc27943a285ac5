public import DataAPI
import JSON
import Logging

/// Takes a deleted user off every user board: a `WriteListener` the host adds to the data
/// service, so each way a `_User` is deleted (REST, `/batch`, a multi-object delete, cloud
/// code's data API, the master key, with or without hooks) removes his statistics once the
/// delete committed, and ranks and counts no longer hold him. DataAPI knows nothing of
/// leaderboards: it announces the delete, as it does to LiveQuery.
public struct DeletedUserStatistics: WriteListener {
    /// The leaderboards whose records are cleaned.
    let leaderboards: Leaderboards

    /// A listener cleaning `leaderboards`' records.
    public init(leaderboards: Leaderboards) {
        self.leaderboards = leaderboards
    }

    /// `_User` deletes only: other writes cost no read for this listener.
    public func hears(_ className: String) -> Bool { className == "_User" }

    /// A user was deleted: his statistics go, in the environment he was deleted from.
    public func didWrite(_ kind: WriteKind, _ event: ObjectEvent) async {
        guard kind == .delete, event.className == "_User",
            let id = event.original?.objectId ?? event.object["objectId"]?.stringValue
        else { return }
        await leaderboards.removeStatistics(ofUser: id, environment: event.caller.environment)
    }
}

extension Leaderboards {
    /// Removes every statistic of a user on every user board, the current and the last
    /// versions alike (archives hold no member's values, so nothing is kept of him). A failure
    /// is logged: the delete it follows has committed.
    public func removeStatistics(ofUser id: String, environment: EnvironmentName) async {
        let store = RecordStore(data: data, logger: logger, environment: environment)
        do {
            try await store.deleteAll(RecordStore.statistics, Self.userRecords(id))
        } catch {
            logger.error("leaderboards: a deleted user's statistics could not be removed", metadata: ["user": "\(id.prefix(64))"])
        }
    }

    /// The records of one user on every user board.
    static func userRecords(_ id: String) -> JSONValue {
        ["member": .string(id), "memberKind": .string(MemberKind.user.rawValue)]
    }
}
