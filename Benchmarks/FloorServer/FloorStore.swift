import DataAPI
import Foundation
import GRDB
import Synchronization

/// One table in SQLite as the host keeps it (WAL, synchronous=NORMAL). Creates are written by one
/// writer thread in groups: every create waiting when the writer turns to them goes into one
/// transaction (at most 64), and each is answered once that transaction committed. This is the
/// cheapest safe create here: no row is acknowledged before its commit, and the transaction's
/// cost is shared as the host's group commit shares it.
final class FloorStore: Sendable {
    private struct Pending: Sendable {
        let row: [String]
        let continuation: UnsafeContinuation<Result<Void, any Error>, Never>
    }

    private let queue: DatabaseQueue
    private let pending = Mutex<[Pending]>([])
    private let ready = DispatchSemaphore(value: 0)

    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode=WAL")
            try db.execute(sql: "PRAGMA synchronous=NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE IF NOT EXISTS o (id TEXT NOT NULL UNIQUE, class TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, doc TEXT NOT NULL)")
        }
        Thread { [self] in write() }.start()
    }

    /// Inserts the document; answers its id and creation time once its transaction committed.
    func insert(className: String, document: String) async throws -> (objectId: String, createdAt: String) {
        // The host's own ids and dates: the floor pays what the host pays for them.
        let objectId = ObjectID.make()
        let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
        let outcome = await withUnsafeContinuation { continuation in
            pending.withLock { $0.append(Pending(row: [objectId, className, now, now, document], continuation: continuation)) }
            ready.signal()
        }
        try outcome.get()
        return (objectId, now)
    }

    /// The writer thread: takes every create waiting (at most 64), writes them in one
    /// transaction, answers each with its outcome.
    private func write() {
        while true {
            ready.wait()
            let group = pending.withLock { pending in
                let group = Array(pending.prefix(64))
                pending.removeFirst(group.count)
                return group
            }
            guard !group.isEmpty else { continue }
            let outcome: Result<Void, any Error>
            do {
                try queue.write { db in
                    let statement = try db.cachedStatement(sql: "INSERT INTO o VALUES (?, ?, ?, ?, ?)")
                    for create in group { try statement.execute(arguments: StatementArguments(create.row)) }
                }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            for create in group { create.continuation.resume(returning: outcome) }
        }
    }
}
