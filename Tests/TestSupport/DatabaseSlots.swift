/// How many test servers hold PostgreSQL connections at once.
///
/// Swift Testing starts every test at once; each server on PostgreSQL opens a pool of up to ten
/// connections (more with its change feed), and hundreds of them together pass the server's
/// `max_connections`. A server waits here for a slot instead; on SQLite nothing waits. A server
/// started inside another (two hosts on one database) shares its outer server's slot, so nesting
/// can't deadlock on slots.
package actor DatabaseSlots {
    /// The slots of the tests' PostgreSQL server: 40 servers (about 4 connections each at
    /// once, measured) stay well under the 400 connections `scripts/postgres.sh` allows, with room for the suites
    /// that open storage directly.
    package static let shared = DatabaseSlots(count: 40)

    /// Whether the current task already holds a slot (a nested server).
    @TaskLocal private static var holdsSlot = false

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private init(count: Int) { free = count }

    /// Runs `body` holding a slot when the tests run on PostgreSQL and the task holds none yet.
    package nonisolated func withSlot<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        guard TestDatabase.isPostgres, !Self.holdsSlot else { return try await body() }
        await acquire()
        do {
            let value = try await Self.$holdsSlot.withValue(true) { try await body() }
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            // The slot passes straight to the longest waiter.
            waiting.removeFirst().resume()
        }
    }
}
